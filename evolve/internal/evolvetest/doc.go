// Package evolvetest holds what the tests of evolve and its sub-packages
// share: a compile cache for the native sandbox backend that lives as
// long as a package's tests, small arenas on fresh checked stores, the
// example policies, and LLM planners that answer from replay files.
package evolvetest
