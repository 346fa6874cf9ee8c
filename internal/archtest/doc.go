// Package archtest holds the repository-wide architecture tests: the import edges DESIGN.md
// forbids. It has no code of its own; the tests read `go list` output.
package archtest
