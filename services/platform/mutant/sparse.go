package mutant

// The sandbox's readings of sparse data (issue 35: 3 hours of history,
// 1-in-32 trace sampling).
const (
	// SandboxDownstreamFewerCalls is the test that a co-regressed callee
	// called less since its onset also failed no more per minute: without
	// it every callee called less leaves CoRegressed for Downstream, one
	// whose own failures rose among them.
	SandboxDownstreamFewerCalls = "sandbox.downstream_fewer_calls"
	// SandboxRefineOpsCap is the refinement over the failing operations'
	// spans keeping the service's bound when any span of the service was
	// off before it: without it a failure of another operation early in
	// the bucket is passed over.
	SandboxRefineOpsCap = "sandbox.refine_ops_cap"
)

// Sparse lists those mutants and the test that kills each.
var Sparse = []Mutant{
	{Name: SandboxDownstreamFewerCalls, Check: "a callee called less since its onset leaves CoRegressed only when its failures per minute rule out a rise of 1.5x",
		KilledBy: "test:services/sandbox:./internal/facts:TestFewerCallsNeedNoMoreFailures"},
	{Name: SandboxRefineOpsCap, Check: "the onset refined over the failing operations' spans is kept only when no span of the service was off before it",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefineByOpsNeverPassesAFailure"},
}
