package mutant

import "slices"

// All returns every mutant `make mutants` runs: the gate's and the reviewer's
// (Catalogue), the deployer's, the door's (Hostile), the ingester's, the
// sandbox's, the evidence references', the bridge's and the bus's. Each list lives in its
// own file, beside the constants it names.
func All() []Mutant {
	return slices.Concat(Catalogue, DeployerCatalogue, Hostile, Ingester, Sandbox, Origin, Sparse, Evidence, Bridge, Bus)
}

// Find returns the mutant named name.
func Find(name string) (Mutant, bool) {
	for _, m := range All() {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}
