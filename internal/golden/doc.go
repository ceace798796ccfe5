// Package golden reads the reference traces kept in envs/testdata/golden
// (format in its README), for the tests that replay them: the environment
// tests and the sandbox conformance suite. It is test support, imported
// only by tests.
package golden
