package mutant

// The checks that keep hostile input out (issue 19). They live in their own
// file so the list above can grow without conflicts.
const (
	// IngestFieldBounds is the ingester's bound on every label, annotation
	// and field and on the normalised alert's size.
	IngestFieldBounds = "ingester.field_bounds"
	// IngestTimeRange is the ingester's sane range for startsAt and endsAt.
	IngestTimeRange = "ingester.time_range"
	// GateSafeKey is the gate's refusal to use a service name that is not a
	// safe KV key as one.
	GateSafeKey = "gate.safe_key"
)

// Hostile lists the mutants of the checks above and the test that kills
// each (`go test -tags agentk_mutants` with AGENTK_MUTANT set goes red).
var Hostile = []Mutant{
	{Name: IngestFieldBounds, Check: "the ingester bounds every label, annotation and field, and the normalised alert's size",
		KilledBy: "test:services/ingester:./webhook:TestParseRefusesHostileInput"},
	{Name: IngestTimeRange, Check: "the ingester keeps startsAt and endsAt between the epoch and a few minutes ahead",
		KilledBy: "test:services/ingester:./webhook:TestParseRefusesHostileInput"},
	{Name: GateSafeKey, Check: "the gate never uses a service name that is not a safe KV key as one",
		KilledBy: "test:services/gate:./internal/natsport:TestHostileServiceNameNeverBecomesAKVKey"},
}
