// Example policies, each a standalone `package policy` file for the
// sandbox (policyevolve play --policy FILE.go). They import "ssd", which
// exists only inside policy workers, so this directory is its own module:
// `go build ./...` and `go vet ./...` at the repository root skip it.
module policies

go 1.25
