package policy

import (
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// Evaluate runs the six checks of DESIGN.md and the freeze check on in and returns the decision:
// allow only when every check passed. It is pure: the same Input always gives
// the same decision.
//
// Where the brief leaves a choice, the gate fails closed and says so:
//   - an incomplete investigation or a review with insufficient evidence fails
//     confidence (no confidence counts from it), with its own reason;
//   - an investigation that did not run the marker query over the window
//     before the onset fails deployment_related;
//   - an alert that failed verification reads as burn rate 0 and no service.
func Evaluate(in Input) contracts.DecisionV1 {
	svc, incident := in.Review.Service, in.Review.IncidentID
	if in.Alert != nil {
		svc, incident = in.Alert.Service, in.Alert.IncidentID
	}
	evidence := belonging(in.Evidence, in.Review.InvestigationID)
	// A claim about another service (the origin of the failures) never
	// lends this one its confidence or diagnosis.
	if !mutant.Off(mutant.GateClaimService) {
		in.Review = bestAbout(in.Review, svc)
	}

	checks := []contracts.CheckResult{
		checkSLOBreach(in),
		checkAllowlist(in),
		checkCooldown(in, svc),
		checkConfidence(in),
		checkDeploymentRelated(in, svc, evidence),
		checkSandboxScope(in, svc),
		checkFreeze(in, svc),
	}

	d := contracts.DecisionV1{
		DecisionID:      DecisionID(in.Review.ReviewID),
		IncidentID:      incident,
		InvestigationID: in.Review.InvestigationID,
		ReviewID:        in.Review.ReviewID,
		Service:         svc,
		Action:          in.Action,
		Verdict:         contracts.VerdictAllow,
		Checks:          checks,
		FailedChecks:    []string{},
		DecidedAt:       in.Now.UTC(),
		ExpiresAt:       in.Now.Add(in.Config.DecisionTTL).UTC(),
		Shadow:          Shadowed(in.Config, svc),
	}
	if in.Review.Best != nil {
		d.Diagnosis = in.Review.Best.Class
		if finiteUnit(in.Review.Best.Confidence) {
			d.Confidence = in.Review.Best.Confidence
		}
	}
	if t, ok := rollbackTarget(in.Ledger, svc); ok {
		// Both ends of the move the human approves; the deployer refuses a
		// plan that is not this move.
		d.RollbackTarget = t.Image
		d.CurrentImage = in.Ledger.Ledger.Releases[len(in.Ledger.Ledger.Releases)-1].Image
	}
	var steps []string
	for _, c := range checks {
		if !c.Passed {
			d.FailedChecks = append(d.FailedChecks, c.Name)
			steps = append(steps, nextStep(c, svc))
		}
	}
	if len(d.FailedChecks) > 0 {
		d.Verdict = contracts.VerdictDeny
		d.NextStep = strings.Join(steps, " ")
	}
	return d
}

// belonging returns the evidence recorded for investigation id; evidence
// from any other investigation is not this incident's, however it verified.
func belonging(all []contracts.EvidenceV1, id string) []contracts.EvidenceV1 {
	if id == "" {
		return nil
	}
	out := make([]contracts.EvidenceV1, 0, len(all))
	for _, e := range all {
		if e.InvestigationID == id {
			out = append(out, e)
		}
	}
	return out
}

// nextStep tells the human what to do about one failed check, from that
// check's own inputs: it never claims a fact (no marker, say) that the
// check's inputs contradict.
func nextStep(c contracts.CheckResult, svc string) string {
	check := c.Name
	switch check {
	case contracts.CheckSLOBreach:
		return "slo_breach: confirm in SigNoz that " + orUnknown(svc) + " is burning its error budget; the alert carried no readable burn rate at or above the threshold, so the gate will not act on it."
	case contracts.CheckAllowlist:
		return "allowlist: the gate allows only rollbacks; take any other action by hand, following the runbook."
	case contracts.CheckCooldown:
		return "cooldown: an action on " + orUnknown(svc) + " ran recently (or the action ledger could not be read); check whether it recovered before acting again."
	case contracts.CheckConfidence:
		for _, w := range []string{contracts.IncompleteSigNozRejected, contracts.IncompleteSigNozUnreachable} {
			if strings.Contains(c.Reason, w) {
				return "confidence: " + w + ", so the investigation read no telemetry; fix the sandbox's SigNoz URL or key (its /readyz names the failure) and investigate in SigNoz by hand meanwhile."
			}
		}
		return "confidence: no evidence-backed diagnosis is strong enough; read the kept and dropped claims in the incident report and investigate in SigNoz."
	case contracts.CheckDeploymentRelated:
		if m := c.Inputs["marker"]; m != "" || c.Inputs["markers_in_window"] != "" {
			if m == "" {
				m = c.Inputs["markers_in_window"]
			}
			return "deployment_related: a deployment marker was found (" + m + ") but the check failed: " + c.Reason + ". Check that release and the other explanations in SigNoz before rolling back by hand."
		}
		if c.Inputs["onset"] != "" && c.Inputs["marker_queries"] == "" {
			return "deployment_related: the investigation never queried the deployment markers before the onset of " + orUnknown(svc) + "; check them in SigNoz's traces explorer before rolling back by hand."
		}
		return "deployment_related: nothing in the recorded telemetry ties the regression to a deployment of " + orUnknown(svc) + " that a rollback would undo; check the deployment markers before the onset in SigNoz's traces explorer before rolling back by hand."
	case contracts.CheckFreeze:
		return freezeNextStep(svc)
	case contracts.CheckSandboxScope:
		return "sandbox_scope: " + orUnknown(svc) + " is not a service agentk may act on; act by hand or add it to AGENTK_SANDBOX_SERVICES."
	}
	return check + ": failed."
}

func orUnknown(s string) string {
	if s == "" {
		return "the (unnamed) service"
	}
	return s
}
