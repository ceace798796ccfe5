// Package storetest opens stores for tests and checks them when the test
// ends: a test that leaves the store inconsistent fails.
package storetest
