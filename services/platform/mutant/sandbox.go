package mutant

// The sandbox's own guards on the MCP route and on field discovery.
const (
	// SandboxMCPAllowlist is the MCP backend's refusal to call a tool outside
	// its read-only allowlist.
	SandboxMCPAllowlist = "sandbox.mcp_allowlist"
	// SandboxMCPFirstBlock is the MCP backend's reading of a tool result's
	// first text block alone as the payload (the official server appends
	// notes as further blocks); without it the blocks are joined.
	SandboxMCPFirstBlock = "sandbox.mcp_first_block"
	// SandboxMCPChildEnv is the stdio MCP server's environment cut down to
	// what it needs and what the operator declared; without it the whole
	// environment of the sandbox (its NATS credentials among it) is passed.
	SandboxMCPChildEnv = "sandbox.mcp_child_env"
	// SandboxExplicitBounds is every query's explicit limit and order
	// (signoz.Bounded); without it an MCP server decides them.
	SandboxExplicitBounds = "sandbox.explicit_bounds"
	// SandboxFieldsExclude is field discovery's dropping of the pipeline's
	// own service names from the values it lists.
	SandboxFieldsExclude = "sandbox.fields_exclude"
	// SandboxPooledUnrefined is the onset refinement's leaving a pooled
	// onset as it is (refined, it can move past the margins' own onset).
	SandboxPooledUnrefined = "sandbox.pooled_unrefined"
	// SandboxSignatureRest is the signature-aware onset's check that the
	// errors of known signatures between the two onsets are no more than
	// their baseline rate gives (without it, a regression of an old
	// signature under way before a later deploy whose failures read as new
	// is moved past).
	SandboxSignatureRest = "sandbox.signature_rest"
)

// Sandbox lists the sandbox's mutants and the test that kills each.
var Sandbox = []Mutant{
	{Name: SandboxMCPAllowlist, Check: "the MCP backend calls only its allowlisted read-only SigNoz tools",
		KilledBy: "test:services/sandbox:./internal/mcpbackend:TestCallRefusesToolsOutsideTheAllowlist"},
	{Name: SandboxMCPFirstBlock, Check: "the MCP backend decodes only the first text block of a tool result as SigNoz's answer",
		KilledBy: "test:services/sandbox:./internal/mcpbackend:TestCapturedResultsOfTheOfficialServer"},
	{Name: SandboxMCPChildEnv, Check: "a stdio MCP server gets only SIGNOZ_URL, the key, PATH, HOME, TMPDIR and the declared variables",
		KilledBy: "test:services/sandbox:./internal/mcpbackend:TestChildGetsOnlyTheDeclaredEnvironment"},
	{Name: SandboxExplicitBounds, Check: "every query the sandbox sends states its limit and order",
		KilledBy: "test:services/sandbox:./internal/mcpbackend:TestEvidenceFactsEqualTheDirectRoute"},
	{Name: SandboxFieldsExclude, Check: "field discovery never lists the pipeline's own service names",
		KilledBy: "test:services/sandbox:./internal/fieldtool:TestServiceValuesNeverShowThePipeline"},
	{Name: SandboxPooledUnrefined, Check: "a pooled onset is not moved later by the refinement inside its bucket",
		KilledBy: "test:services/sandbox:./internal/tools:TestRefineLeavesPooledOnsets"},
	{Name: SandboxSignatureRest, Check: "the signature-aware onset moves an onset later only past the known signatures' background",
		KilledBy: "test:services/sandbox:./internal/tools:TestSignatureOnsetGuards"},
}
