package mutant

// The ingester's checks that keep one episode of a rule one incident.
const (
	// IngestReusedID is the ingester's read of a new incident's record when
	// its rule fired before: the incident id may be a resolved episode's
	// (flapping), which must not be published again under that id.
	IngestReusedID = "ingester.reused_id"
	// IngestServiceName is the ingester's refusal of a service label that
	// is not a service name (non-ASCII, a homoglyph of another service).
	IngestServiceName = "ingester.service_name"
)

// Ingester lists the mutants of the checks above and the test that kills
// each (`go test -tags agentk_mutants` with AGENTK_MUTANT set goes red).
var Ingester = []Mutant{
	{Name: IngestReusedID, Check: "the ingester reads the record of a new incident of a rule that fired before, and never republishes a resolved episode under its id",
		KilledBy: "test:services/ingester:./internal/incidents:^TestAReFireNeverRepublishesTheResolvedEpisode$"},
	{Name: IngestServiceName, Check: "the ingester refuses a service label that is not a service name (non-ASCII, a homoglyph of another service)",
		KilledBy: "test:services/ingester:./webhook:^TestParseRefusesWhatCannotNameAService$"},
}
