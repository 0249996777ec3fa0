package mutant

// The check every reader of referenced evidence makes.
const (
	// EvidenceRefDigest is the evidence resolver's check that the envelope
	// stored under a reference's digest has a payload that hashes to it.
	EvidenceRefDigest = "evidence.ref_digest"
)

// Evidence lists the evidence resolver's mutants and the test that kills each.
var Evidence = []Mutant{
	{Name: EvidenceRefDigest, Check: "a referenced evidence envelope is used only when its payload hashes to the reference's digest",
		KilledBy: "test:services/platform:./evidence:TestResolveFailsClosed"},
}
