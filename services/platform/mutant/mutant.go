// Package mutant lets a test build switch off one safety check at a time, so that
// the eval and the tests can show that each check is load-bearing (`make mutants`,
// docs/reliability.md). A safety check asks Off(name) before it runs and, when it
// is told yes, passes without looking.
//
// In every normal build Off is a constant false that the compiler folds away: the
// switch exists only in binaries built with `-tags agentk_mutants`, where the
// environment variable AGENTK_MUTANT names the one check to disable.
package mutant

// Mutant is one safety check that `make mutants` disables in turn, and what must
// notice: the eval (a bad rollback appears) or a named test.
type Mutant struct {
	// Name is the value of AGENTK_MUTANT that disables the check.
	Name string
	// Check says in words what is switched off.
	Check string
	// KilledBy is "eval" or "test:<module dir>:<package>:<TestName regexp>", the
	// killer that must go red while the mutant is on.
	KilledBy string
}

// The names of every mutant. Off takes one of these.
const (
	GateSLOBreach                = "gate.slo_breach"
	GateAllowlist                = "gate.allowlist"
	GateCooldown                 = "gate.cooldown"
	GateConfidence               = "gate.confidence"
	GateDeploymentClass          = "gate.deployment_class"
	GateMarkerBeforeOnset        = "gate.marker_before_onset"
	GateMarkerLedgerAgree        = "gate.marker_ledger_agrees"
	GateMarkerEnvironment        = "gate.marker_environment"
	GateAlternativeCause         = "gate.alternative_cause"
	GateFailingDependency        = "gate.failing_dependency"
	GateDependencyFault          = "gate.dependency_fault"
	GateRetriedFault             = "gate.retried_fault"
	GatePublishedArrivals        = "gate.published_arrivals"
	GateLoggedArrivals           = "gate.logged_arrivals"
	GateConfigAcceptedCredential = "gate.config_accepted_credential"
	GateChangeEvidence           = "gate.change_evidence"
	GateChangeNewShare           = "gate.change_new_share"
	GateChangeRegression         = "gate.change_regression"
	GateChangeOpSettings         = "gate.change_op_settings"
	GateChangeTimeout            = "gate.change_timeout"
	GateChangeTimeoutSlow        = "gate.change_timeout_slow"
	GateChangeTimedOut           = "gate.change_timed_out"
	GateChangeSlowAnswered       = "gate.change_slow_answered"
	GateChangeSlowSentPeer       = "gate.change_slow_sent_peer"
	GateReleaseErrors            = "gate.release_errors"
	GateOtherVersionsFail        = "gate.other_versions_fail"
	GateRuntimeConfigChange      = "gate.runtime_config_change"
	GateRuntimeAttributeShift    = "gate.runtime_attribute_shift"
	GateConfigSilentDependency   = "gate.config_silent_dependency"
	GateRegionShift              = "gate.region_shift"
	GateNodeConfined             = "gate.node_confined"
	GateImageTagLedger           = "gate.image_tag_ledger"
	GateLedgerWholeVersion       = "gate.ledger_whole_version"
	GatePoolExhaustion           = "gate.pool_exhaustion"
	GatePoolSignature            = "gate.pool_signature"
	GateLoadShed                 = "gate.load_shed"
	GateProcessRestart           = "gate.process_restart"
	GateResourcePressure         = "gate.resource_pressure"
	GateRuntimeSaturation        = "gate.runtime_saturation"
	GateQualityClasses           = "gate.quality_classes"
	GateStatusClasses            = "gate.status_classes"
	GateRollbackTarget           = "gate.rollback_target"
	GateSandboxScope             = "gate.sandbox_scope"
	GateFreeze                   = "gate.freeze"
	ReviewerEvidenceIDs          = "reviewer.evidence_ids"
	ReviewerNumbers              = "reviewer.numbers"
	DeployerGateSignature        = "deployer.gate_signature"
	DeployerBridgeSig            = "deployer.bridge_signature"
	DeployerRoles                = "deployer.roles"
	DeployerDigest               = "deployer.digest"
	DeployerExpiry               = "deployer.expiry"
	DeployerNonce                = "deployer.nonce"
	DeployerDecisionSpent        = "deployer.decision_consumed"
	DeployerTargetMatch          = "deployer.target_match"
	DeployerAllowlist            = "deployer.allowlist"
	DeployerCooldown             = "deployer.cooldown"
	DeployerResolvedSince        = "deployer.resolved_since"
	DeployerLeaseRenewal         = "deployer.lease_renewal"
)
