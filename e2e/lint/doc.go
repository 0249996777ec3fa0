// Package lint holds the repository-wide limits on production code that CI
// enforces without golangci-lint: every function of every non-test .go file
// at most maxLines lines long and of cyclomatic complexity at most
// maxComplexity (github.com/fzipp/gocyclo, the measure golangci-lint's
// gocyclo linter uses). `make lint` runs the same limits through
// golangci-lint (gocyclo and funlen in .golangci.yml).
//
// Copy-paste is the third limit and cannot be a test: run `duplicates
// --change --base main` before a change is merged, and mend what it lists
// or comment why two copies are deliberate.
package lint
