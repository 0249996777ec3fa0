package mutant

// DeployerMarkerRestart switches off the ledger watcher's rule that a start
// on the image the ledger already ends with (a restart, a crash loop, the
// ledger learning an image id) is not a deployment to announce. Declared
// here rather than in mutant.go, beside its catalogue entry.
const DeployerMarkerRestart = "deployer.marker_restart"

// DeployerCatalogue lists the deployer's mutants and the named test that
// goes red when each is on. Every killer was run with
// `go test -tags agentk_mutants` and AGENTK_MUTANT=<name>: it passes in a
// normal build and fails with the mutant on (the approval is acted on
// instead of refused). Each test's case is built so that only that one check
// stands between the message and a rollback (a ledger with a target, a fresh
// decision, no freeze), so the kill is a rollback, not a changed reason code.
var DeployerCatalogue = []Mutant{
	{DeployerGateSignature, "deployer: the decision inside an approval is signed by a known key (a gate-signed decision tampered after signing is refused)",
		"test:services/deployer:./internal/rollback:^TestRefusals$/^decision_payload_tampered_after_signing$"},
	{DeployerBridgeSig, "deployer: the approval is signed by a known key (a bridge-signed approval tampered after signing is refused)",
		"test:services/deployer:./internal/rollback:^TestRefusals$/^approval_payload_tampered_after_signing$"},
	{DeployerRoles, "deployer: the approval's key is the bridge's and the decision's the gate's, and each role may sign that subject",
		"test:services/deployer:./internal/rollback:^TestRefusals$/^approval_signed_by_the_gate's_key$"},
	{DeployerDigest, "deployer: the approval binds the sha256 of the decision it carries",
		"test:services/deployer:./internal/rollback:^TestRefusals$/^approval_for_another_decision's_digest$"},
	{DeployerExpiry, "deployer: neither the decision nor the approval (envelope or payload) has expired, and both have an expiry",
		"test:services/deployer:./internal/rollback:^TestRefusals$/^(approval_expired|approval_envelope_expired|decision_expired)$"},
	{DeployerNonce, "deployer: an approval's nonce is used once (a refused approval published again after the freeze that refused it lifts stays refused)",
		"test:services/deployer:./internal/rollback:^TestARefusedApprovalReplayedAfterTheFreezeLiftsStaysRefused$"},
	{DeployerOriginAlert, "deployer: a derived decision (issue 33) carries the ingester-signed alert of this incident naming the alerted service its origin states, which is not the decision's own service",
		"test:services/deployer:./internal/rollback:^TestDerivedDecisionWithATamperedOriginIsRefused$"},
	{DeployerDecisionSpent, "deployer: a decision is consumed once, whatever the approvals (create-only key in agentk_spent)",
		"test:services/deployer:./internal/rollback:^TestOneDecisionPaysForOneAction$"},
	{DeployerTargetMatch, "deployer: its plan is the decision's current → target move, and the running release is older than the decision (the ledger has not moved)",
		"test:services/deployer:./internal/rollback:^TestRefusals$/^(decision_approved_another_target|decision_approved_a_move_from_another_release|the_running_release_was_deployed_after_the_decision)$"},
	{DeployerAllowlist, "deployer: the service is in the deployer's own allowlist",
		"test:services/deployer:./internal/rollback:^TestRefusals$/^service_outside_the_deployer's_allowlist$"},
	{DeployerCooldown, "deployer: no action on the service within its cooldown",
		"test:services/deployer:./internal/rollback:^TestRefusals$/^cooldown_active$"},
	{DeployerResolvedSince, "deployer: the incident's alert has not resolved, or a human re-confirmed after the resolve",
		"test:services/deployer:./internal/rollback:^TestRefusals$/^alert_resolved,_not_re-confirmed$"},
	// Not a check of one approval: the replicas' first line against two
	// deployers acting at once (the decision-spent CAS and the cooldown are
	// the second). The killer's leader keeps its term running when the check
	// is off.
	{DeployerLeaseRenewal, "deployer: a replica whose lease renewal fails or is late stops consuming approvals before a standby may take the lease over",
		"test:services/deployer:./internal/lease:^TestLeaderStopsWhenItsRenewalFails$"},
	// Not a check of an approval: what keeps a crash-looping service from
	// re-announcing its old version with a fresh marker at every start.
	{DeployerMarkerRestart, "deployer: the ledger watcher announces no deployment for a start on the image the ledger already ends with (docker restart, a crash loop, a recreate on the same image)",
		"test:services/deployer:./internal/ledger:^TestAnnounce$"},
}
