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

// GateClaimService is the gate's rule that a claim about another service
// (Claim.Service: the origin of the failures) never lends the alerted
// service's decision its confidence or diagnosis.
const GateClaimService = "gate.claim_service"

// GateOriginAlertedAllowed is the gate's rule that a derived decision is
// denied when the alerted service's own decision allowed: its own release
// then explains the regression, and one alert buys one rollback.
const GateOriginAlertedAllowed = "gate.origin_alerted_allowed"

// GateOriginOnsetBucket is the bound on a derived decision's onset: the
// origin's own refined onset stands for the minute-grained onset the alerted
// service's evidence measured for it only inside that minute. Switched off,
// an own onset of any later minute would replace an earlier departure.
const GateOriginOnsetBucket = "gate.origin_onset_bucket"
