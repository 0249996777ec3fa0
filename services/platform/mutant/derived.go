package mutant

// GateOriginShare is the gate's share threshold on a derived decision (issue
// 33, DESIGN.md rule 17): a callee is rolled back for the alerted service's
// burn only when at least that share of the alerted service's new failures
// begin in it. Switched off, a callee that merely deployed near the onset
// while most failures begin elsewhere would be offered a rollback.
const GateOriginShare = "gate.origin_share"

// DeployerOriginAlert is the deployer's refusal of a derived decision whose
// signed alert does not name the alerted service its origin states (issue 33).
const DeployerOriginAlert = "deployer.origin_alert"
