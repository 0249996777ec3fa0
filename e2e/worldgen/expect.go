package worldgen

import (
	"math"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
)

// Gate thresholds of DESIGN.md that the expectation reasons with. They are
// the shipped defaults; a world written for other thresholds would say so.
const (
	cooldown     = 600 * time.Second
	markerWindow = 30 * time.Minute
)

// expect is what a correct gate decides for a rollback of the affected
// service when the diagnosis is right, check by check (DESIGN.md): the burn
// rate must read ≥ 1 by INCIDENT-FORMAT's rule, no action within the
// cooldown, a deployment-class diagnosis with a marker of this service within
// 30 minutes before the onset and a rollback target in the ledger, and the
// service in the sandbox scope. allowlist and confidence pass by construction
// (the action is a rollback; a right diagnosis is confident).
func expect(w World) incident.Expect {
	var failed []string
	if !w.burnReadable() {
		failed = append(failed, contracts.CheckSLOBreach)
	}
	if w.Has(CooldownActive) {
		failed = append(failed, contracts.CheckCooldown)
	}
	if !deploymentClass(w.Class) || !w.markerExplainsOnset() || len(w.Versions) < 2 || !w.enoughEvidence() {
		failed = append(failed, contracts.CheckDeploymentRelated)
	}
	if w.Has(OutOfScope) {
		failed = append(failed, contracts.CheckSandboxScope)
	}
	e := incident.Expect{RootCause: w.Class, Verdict: contracts.VerdictAllow}
	if len(failed) > 0 {
		e.Verdict = contracts.VerdictDeny
		e.FailedChecks = failed
	}
	if w.Has(CulpritCallee) {
		// The callee released before the onset and its failures are the
		// affected service's (DESIGN.md rule 17): its rollback is right
		// when its own checks pass; the burn rate is the alert's. The root
		// cause is the callee's release, as in DrawCulprit's worlds and
		// e2e/incidents-culprit (issue 33): a bad release of the callee,
		// not an outage the caller waits out.
		e.RootCause = "bad_release"
		e.Culprit = &incident.Culprit{Service: w.Topo.Callee, Verdict: contracts.VerdictAllow}
		if !w.burnReadable() {
			e.Culprit.Verdict = contracts.VerdictDeny
		}
	}
	return e
}

func (w World) burnReadable() bool {
	return !slices.ContainsFunc(w.Variants, func(v Variant) bool {
		return v == BurnMissing || v == BurnNaN || v == BurnNegative || v == BurnProse
	})
}

// markerExplainsOnset reports whether a marker of the affected service lies
// within the window before the onset (at or after the onset explains nothing).
func (w World) markerExplainsOnset() bool {
	for _, d := range w.Deploys {
		if d.Service == w.Topo.Affected && d.At.Before(w.Onset) && w.Onset.Sub(d.At) <= markerWindow {
			return true
		}
	}
	return false
}

// The documented minimum of evidence the sandbox's onset needs
// (services/sandbox/README.md, tools.DefaultMargins): a baseline of 10
// minutes and 30 sampled requests before the onset, and a bucket's error rate
// counts only over 3 sampled requests, so at least that many since the onset.
// Of those, the regression must be expected to leave minOnsetFailing failing
// (or slowed) ones: the sandbox never takes fewer than 3 errors as a
// regression of sparse traffic (tools.PooledMinErrors), and one error in
// ten requests is no evidence that a release broke anything.
const (
	minBaselineMinutes  = 10
	minBaselineRequests = 30
	minOnsetRequests    = 3
	minOnsetFailing     = 3
)

// enoughEvidence reports whether the recording holds that minimum, counted
// in stored traces of the affected service (each holds at least one of its
// spans, which is what the sandbox counts, so this errs towards enough only
// where the spans are more). Below it the onset is unknown, the evidence says
// so ("baseline 6 min …, need 10 min and 30 sampled requests"), and no marker
// can be placed before it: deployment_related fails. The failing ones are
// the expected count (the stored traces since the onset times
// affectedShare), not the count drawn: a world whose release is expected to
// fail two sampled requests before now is no rollback however its draws
// fall (s9393-w008: 13 sampled requests since the onset, 17% of them
// expected to fail, one stored error).
func (w World) enoughEvidence() bool {
	return w.enoughTraffic() && w.expectedFailing() >= minOnsetFailing
}

// enoughTraffic reports whether the recording holds the baseline and the
// sampled requests since the onset that the sandbox's onset needs, whatever
// share of them fails.
func (w World) enoughTraffic() bool {
	base := w.Onset.Sub(w.Start).Minutes()
	since := w.Now.Sub(w.Onset).Minutes()
	per := w.StoredPerMinute()
	return base >= minBaselineMinutes && per*base >= minBaselineRequests && per*since >= minOnsetRequests
}

// expectedFailing is the count of failing (or slowed) sampled requests of
// the affected service the regression is expected to leave since the onset.
func (w World) expectedFailing() float64 {
	return w.StoredPerMinute() * w.Now.Sub(w.Onset).Minutes() * w.affectedShare()
}

// affectedShare is the share of the affected service's requests since the
// onset that the deployment-class regression shows in (classOutcomes): a
// bad release fails failP of the requests to the endpoints it broke, a
// configuration regression at least half of those that call the
// dependency, a retry storm slows every one that calls it, a prompt
// regression every request. Other classes are no rollback: 1.
func (w World) affectedShare() float64 {
	e := newEmitter(w)
	e.drawSeverity()
	var broken, uses float64
	for i, ep := range w.Topo.Endpoints {
		if e.broken[i] {
			broken += ep.Share
		}
		if ep.UsesCallee {
			uses += ep.Share
		}
	}
	switch w.Class {
	case "bad_release":
		return e.failP * broken
	case "config_regression":
		return math.Max(e.failP, 0.5) * uses
	case "retry_storm":
		return uses
	}
	return 1
}

// settle is w with its expectation checked against the telemetry drawn for
// it. A bad release or configuration regression, whose only evidence is its
// errors, that stored fewer than minOnsetFailing failing requests of the
// new version since the onset expects a deny, however many the draw was
// expected to leave (s5150-w048: 4.7 expected, one stored in 17 minutes of
// the release). A rollback on one or two errors is no decision the evidence
// supports; the gate must fail closed there. The other way round too: one
// that was denied only because fewer than minOnsetFailing were expected,
// and stored that many, expects an allow (s6271-w032: 2.54 expected, 3
// stored, none in the 136 minutes before): the gate sees the stored errors,
// never the share the generator drew them with, and 3 new errors is the
// sandbox's documented minimum.
func settle(w World, tel Telemetry) World {
	if w.Class != "bad_release" && w.Class != "config_regression" {
		return w
	}
	stored := storedFailing(w, tel)
	switch {
	case w.Expect.Verdict == contracts.VerdictAllow && stored < minOnsetFailing:
		w.Expect.Verdict = contracts.VerdictDeny
		w.Expect.FailedChecks = []string{contracts.CheckDeploymentRelated}
	case w.shortOnlyOfExpectedFailing() && stored >= minOnsetFailing:
		w.Expect.Verdict = contracts.VerdictAllow
		w.Expect.FailedChecks = nil
	}
	return w
}

// shortOnlyOfExpectedFailing reports whether w expects a deny on
// deployment_related alone, and only because its regression was expected to
// leave fewer than minOnsetFailing failing sampled requests: every other
// condition of the check holds.
func (w World) shortOnlyOfExpectedFailing() bool {
	return w.Expect.Verdict == contracts.VerdictDeny &&
		slices.Equal(w.Expect.FailedChecks, []string{contracts.CheckDeploymentRelated}) &&
		deploymentClass(w.Class) && w.markerExplainsOnset() && len(w.Versions) >= 2 &&
		w.enoughTraffic() && w.expectedFailing() < minOnsetFailing
}

// storedFailing counts the affected service's stored entry spans (server,
// consumer) of the new version that failed at or after the onset.
func storedFailing(w World, tel Telemetry) int {
	n := 0
	for _, s := range tel.Spans {
		if s.HasError && (s.Kind == 2 || s.Kind == 5) && !s.at.Before(w.Onset) &&
			s.Resource["service.name"] == w.Topo.Affected && s.Resource["service.version"] == w.NewVersion() {
			n++
		}
	}
	return n
}
