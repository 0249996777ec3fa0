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
	// IngestHandDecodeFold is the hand decoder's refusal of a member name
	// encoding/json would match to a field although it is not spelt as one
	// ("Labels", "label\u017f"): read as an unknown member, a second labels
	// map would be dropped where encoding/json decodes it.
	IngestHandDecodeFold = "ingester.hand_decode_fold"
)

// Ingester lists the mutants of the checks above and the test that kills
// each (`go test -tags agentk_mutants` with AGENTK_MUTANT set goes red).
var Ingester = []Mutant{
	{Name: IngestReusedID, Check: "the ingester reads the record of a new incident of a rule that fired before, and never republishes a resolved episode under its id",
		KilledBy: "test:services/ingester:./internal/incidents:^TestAReFireNeverRepublishesTheResolvedEpisode$"},
	{Name: IngestServiceName, Check: "the ingester refuses a service label that is not a service name (non-ASCII, a homoglyph of another service)",
		KilledBy: "test:services/ingester:./webhook:^TestParseRefusesWhatCannotNameAService$"},
	{Name: IngestHandDecodeFold, Check: "the ingester's hand decoder leaves a body to encoding/json when a member name is another spelling of a field's (case, escape, Unicode folding)",
		KilledBy: "test:services/ingester:./webhook:^TestHandDecodeIsEncodingJSON$"},
}
