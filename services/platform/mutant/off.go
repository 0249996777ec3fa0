//go:build !agentk_mutants

package mutant

// Off reports whether the safety check name is switched off. In a normal build it
// never is.
func Off(string) bool { return false }
