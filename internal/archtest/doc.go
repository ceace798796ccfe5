// Package archtest holds a test of the import rules of
// docs/architecture.md for the packages at the bottom of the project:
// those that import only the standard library (and, for some, one named
// package), and of docs/objectives.md's rule that code outside pool asks
// an objective what it decides rather than naming it. It has no code of
// its own.
package archtest
