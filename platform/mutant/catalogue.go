package mutant

import "slices"

// deployerEntries are the deployer's mutants, registered by deployer.go's
// init (register), so that this file does not depend on that one's names.
var deployerEntries []Mutant

// register adds the deployer's mutants to All.
func register(ms ...Mutant) { deployerEntries = append(deployerEntries, ms...) }

// All returns every mutant `make mutants` runs: the gate's and the reviewer's
// (Catalogue), then the deployer's.
func All() []Mutant { return slices.Concat(Catalogue, deployerEntries) }

// Find returns the mutant named name.
func Find(name string) (Mutant, bool) {
	for _, m := range All() {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}
