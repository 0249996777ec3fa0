//go:build agentk_mutants

package mutant

import "os"

// Off reports whether the safety check name is the one that AGENTK_MUTANT
// switches off in this mutant build.
func Off(name string) bool { return name != "" && os.Getenv("AGENTK_MUTANT") == name }
