package mutant

// The sandbox's reading of where the alerted service's failures begin
// (Facts.Origin) and of the callees that regressed only as its effect
// (Facts.Downstream), and the reviewer's check of a claim about the origin
// (Claim.Service).
const (
	// SandboxOriginShare is the origin's least share of the alerted
	// service's failing traces (Limits.OriginShare): without it a callee
	// where a few failures begin is named the origin.
	SandboxOriginShare = "sandbox.origin_share"
	// SandboxDownstreamEffect is the test that a callee regressed only as an
	// effect (the alerted service calls it less, or from spans that fail on
	// their own): without it every callee that regressed beneath the alerted
	// service's calls leaves CoRegressed, a callee failing on its own among them.
	SandboxDownstreamEffect = "sandbox.downstream_effect"
	// ReviewerClaimService is the reviewer's dropping of a claim about
	// another service than the report's (Claim.Service) that cites no
	// evidence about that service.
	ReviewerClaimService = "reviewer.claim_service"
	// SandboxSidecarApp is the reading of a mesh sidecar's service name
	// `<app>.<namespace>` as its app's (facts.SidecarApp): without it the
	// callee's sidecar, answering 200 over a failing gRPC call, hides where
	// the failures begin, and the caller's own sidecar stands as a callee.
	SandboxSidecarApp = "sandbox.sidecar_app"
	// SandboxFailingDepDNS is the reading of a failing dependency's peer
	// name as a co-regressed service's Kubernetes DNS name
	// (facts.KnownService): without it a callee the mesh names
	// `<name>.<namespace>.svc.cluster.local`, failing and called less,
	// leaves the shared causes as a mere downstream effect.
	SandboxFailingDepDNS = "sandbox.failing_dep_dns"
)

// Origin lists those mutants and the test that kills each.
var Origin = []Mutant{
	{Name: SandboxOriginShare, Check: "a callee is the origin only when at least Limits.OriginShare of the alerted service's failing traces begin there",
		KilledBy: "test:services/sandbox:./internal/tools:TestOriginNeedsMostFailuresToBeginThere"},
	{Name: SandboxDownstreamEffect, Check: "a callee leaves CoRegressed for Downstream only when the alerted service calls it less or from spans that fail on their own",
		KilledBy: "test:services/sandbox:./internal/tools:TestDownstreamEffectsAreNotASharedCause"},
	{Name: ReviewerClaimService, Check: "a claim about another service than the report's (Claim.Service) is kept only when it cites evidence about that service",
		KilledBy: "test:services/reviewer:./internal/review:TestClaimAboutAnotherServiceCitesItsEvidence"},
	{Name: SandboxSidecarApp, Check: "a mesh sidecar's service `<app>.<namespace>` is read as its app when `<app>` is exactly a known service, so the origin is the callee app behind its sidecar",
		KilledBy: "test:services/sandbox:./internal/facts:TestOriginThroughMeshSidecars"},
	{Name: SandboxFailingDepDNS, Check: "a failing dependency named by its Kubernetes service DNS name is that co-regressed service, which stays a shared cause even when called less",
		KilledBy: "test:services/sandbox:./internal/facts:TestJudgePropagation"},
}
