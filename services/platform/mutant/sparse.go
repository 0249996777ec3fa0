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
	// SandboxRefusedOthers is the test that a callee refusing the affected
	// service's requests as sent (4xx) answered its other callers with no
	// more errors:
	// without it a callee that refuses everybody (its own fault) leaves
	// CoRegressed and FailingDependencies.
	SandboxRefusedOthers = "sandbox.refused_others"
	// SandboxRefusedLatency is the test that a callee refusing the affected
	// service's requests as sent kept its latency (its own series, errors
	// set aside, holds no sustained p95 departure): without it a callee that
	// slows for everyone while it refuses the service's calls (its own
	// trouble) leaves CoRegressed and FailingDependencies.
	SandboxRefusedLatency = "sandbox.refused_latency"
	// SandboxRefusalClass is the answer class a callee's refusal is read
	// from (HTTP 4xx but 401, 403, 407, 408, 425, 429, 499; gRPC
	// INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION,
	// OUT_OF_RANGE): without it every failed call reads as a refusal, and a
	// callee that rate-limits (429) or fails (5xx, timeouts) leaves
	// CoRegressed and FailingDependencies.
	SandboxRefusalClass = "sandbox.refusal_class"
	// GateRefusedOriginRelease is the gate's reading of the origin's release
	// ledger when the sandbox judged the origin to refuse the alerted
	// service's requests: without it a callee that released a stricter
	// validation lets the caller be rolled back.
	GateRefusedOriginRelease = "gate.refused_origin_release"
	// SandboxImpatientWaited is the test that a service whose calls to a
	// peer fail although the peer answered them waited longer on that peer
	// before the onset: without it a peer that slowed under an unchanged
	// client timeout (the client gives up on answered calls too) leaves
	// FailingDependencies.
	SandboxImpatientWaited = "sandbox.impatient_waited"
	// SandboxVersionOnset is the onset of a failure confined to a version
	// that began serving in the onset's window placed over that version's
	// spans (facts.RefineByVersion): without it a canary's failure reads as
	// beginning before the canary served.
	SandboxVersionOnset = "sandbox.version_onset"
	// SandboxVersionOnsetNew is RefineByVersion's test that the version
	// served no entry span before the onset's minute: without it a version
	// that served for minutes before failing has its onset moved to its
	// first span of the window.
	SandboxVersionOnsetNew = "sandbox.version_onset_new"
	// SandboxVersionOnsetOthers is RefineByVersion's test that the other
	// versions' clean spans of the failing operations are enough to rule
	// out a failure of every version: without it a handful of them (a
	// recreate's last requests) confine a failure to the new version.
	SandboxVersionOnsetOthers = "sandbox.version_onset_others"
	// SandboxVersionOnsetBucket is RefineByVersion's bound: the onset moves
	// only inside its first bucket. Without it a pooled onset moves past a
	// departure a later bucket holds.
	SandboxVersionOnsetBucket = "sandbox.version_onset_bucket"
	// SandboxVersionOnsetRequests is RefineByVersion's count of requests
	// (a trace's spans once): without it the attempts of retried requests
	// weigh as independent failures and confine a failure on too few.
	SandboxVersionOnsetRequests = "sandbox.version_onset_requests"
)

// Sparse lists those mutants and the test that kills each.
var Sparse = []Mutant{
	{Name: SandboxDownstreamFewerCalls, Check: "a callee called less since its onset leaves CoRegressed only when its failures per minute rule out a rise of 1.5x",
		KilledBy: "test:services/sandbox:./internal/facts:TestFewerCallsNeedNoMoreFailures"},
	{Name: SandboxRefineOpsCap, Check: "the onset refined over the failing operations' spans is kept only when no span of the service was off before it",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefineByOpsNeverPassesAFailure"},
	{Name: SandboxRefusedOthers, Check: "a callee that refuses the service's calls as sent (4xx) leaves CoRegressed only when its other callers' error spans a minute rule out a rise of 1.5x",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefusedCalleeMustNotFailOthers"},
	{Name: SandboxRefusedLatency, Check: "a callee that refuses the service's calls as sent (4xx) leaves CoRegressed only when its own p95, errors set aside, did not leave its baseline",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefusedCalleeMustKeepItsLatency"},
	{Name: SandboxRefusalClass, Check: "a failed call reads as a refusal only with a client-error status (4xx but 401/403/407/408/425/429/499; gRPC INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, OUT_OF_RANGE)",
		KilledBy: "test:e2e:.:^TestCalleeTwinsOfHeldout2AreDenied$"},
	{Name: GateRefusedOriginRelease, Check: "an origin the sandbox judged to refuse the alerted service's requests denies the rollback when its own ledger shows a release in the marker window or cannot be read",
		KilledBy: "test:services/gate:./internal/policy:TestRefusedOriginThatReleasedDenies"},
	{Name: SandboxImpatientWaited, Check: "a failing peer whose failed calls it answered leaves FailingDependencies only when the service waited on it, before the onset, on at least 3 answered calls 1.5x as long as the longest of those",
		KilledBy: "test:services/sandbox:./internal/facts:TestImpatientPeerMustHaveWaitedBefore"},
	{Name: SandboxVersionOnset, Check: "a failure confined to a version that began serving in the onset's window has its onset placed over that version's spans of the failing operations, from its first",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefineByVersionPlacesACanary"},
	{Name: SandboxVersionOnsetNew, Check: "a failure confined to one version moves the onset to that version's first span only when it served no entry span before the onset's minute",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefineByVersionNeedsAll"},
	{Name: SandboxVersionOnsetOthers, Check: "a failure is confined to one version only when the other versions' clean requests of the failing operations rule out a failure of every version (Fisher's exact test, chance at most 0.01)",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefineByVersionNeedsAll"},
	{Name: SandboxVersionOnsetBucket, Check: "a failure confined to one version moves the onset only inside its first bucket",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefineByVersionNeedsAll"},
	{Name: SandboxVersionOnsetRequests, Check: "a failure is confined to one version by its requests (a trace's spans once), not by the attempts of each",
		KilledBy: "test:services/sandbox:./internal/facts:TestRefineByVersionNeedsAll"},
}
