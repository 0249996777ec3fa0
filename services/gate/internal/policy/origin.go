package policy

import (
	"math"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// DefaultOriginShare is OriginShareThreshold's default: a callee is the
// origin of an alert only when at least half of the alerted service's new
// failures begin in it ("most of them", issue 33).
const DefaultOriginShare = 0.5

// Origin signals the sandbox measures (contracts.FailureOrigin.Signal).
const (
	SignalErrors  = "errors"
	SignalLatency = "latency"
)

// OriginOnsetSuffix marks, in a derived decision's inputs (onset_evidence),
// the onset of the origin that the alerted service's evidence measured.
const OriginOnsetSuffix = "#origin"

// OriginState is what the adapter read for the service where the alerted
// service's failures begin: that service's own action ledger, release
// ledger and freezes. Service names the service it was read for; state read
// for another service than the evidence names fails closed.
type OriginState struct {
	Service  string
	Cooldown CooldownState
	Ledger   LedgerState
	Freezes  FreezeState
}

// OriginOf returns the failure origin that this investigation's sandbox
// evidence measured for the alerted service, when it names another service
// (DESIGN.md rule 17), and the id of the evidence it came from. Of several,
// the one with the largest share counts (ties: by service name, then
// evidence id), so the result does not depend on the evidence's order. The
// adapter calls it to know whose state to read; EvaluateOrigin calls it
// again on the same input.
func OriginOf(in Input) (contracts.FailureOrigin, string, bool) {
	svc := alertedService(in)
	var best contracts.FailureOrigin
	var from string
	for _, e := range belonging(in.Evidence, in.Review.InvestigationID) {
		o := e.Facts.Origin
		if e.Service != svc || o == nil || o.Service == "" || o.Service == svc || !serviceName(o.Service) {
			continue
		}
		if from == "" || shareKey(*o) > shareKey(best) ||
			shareKey(*o) == shareKey(best) && (o.Service < best.Service || o.Service == best.Service && e.ID < from) {
			best, from = *o, e.ID
		}
	}
	return best, from, from != ""
}

// serviceName reports whether s can name a service in a decision id, a KV
// key and a message id: span data names the origin, and a name that could
// not be any of those (a newline, a space, 300 bytes) gets no decision.
func serviceName(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')
		if !ok {
			return false
		}
	}
	return true
}

func shareKey(o contracts.FailureOrigin) float64 {
	if math.IsNaN(o.Share) {
		return -1
	}
	return o.Share
}

// alertedService is the service the decision about the alert is about: the
// signed alert's, or the review's when the alert did not verify (Evaluate's
// rule; every check then fails closed).
func alertedService(in Input) string {
	if in.Alert != nil {
		return in.Alert.Service
	}
	return in.Review.Service
}

// Decide returns the gate's decisions on in: the decision about the alerted
// service (Evaluate), then, when the evidence names another service where
// its failures begin, the derived decision about that service
// (EvaluateOrigin). One alert: at most one decision per service.
func Decide(in Input) []contracts.DecisionV1 {
	d := Evaluate(in)
	out := []contracts.DecisionV1{d}
	if o, ok := EvaluateOrigin(in, d); ok {
		out = append(out, o)
	}
	return out
}

// EvaluateOrigin is the derived decision (issue 33, DESIGN.md rule 17): the
// alert fired on one service and the failures begin in another, S. It asks
// the same six checks, and the freeze, of S:
//
//   - slo_breach: the alert's burn rate, as for the alerted service, and at
//     least OriginShareThreshold of the alerted service's new failures begin
//     in S (the lower of the stated share and failures/total counts);
//   - allowlist: as for any decision;
//   - cooldown, freeze: S's own, read by the adapter for S;
//   - confidence: the best kept claim about S (Claim.Service = S);
//   - deployment_related: that claim's class is deployment-class, a marker
//     of S that S's release ledger corroborates lies before S's own onset
//     (the earliest of the origin's measured onset and any onset of S's own
//     evidence; S's own onset stands alone when it refines, inside its
//     minute, the whole-minute onset the alerted evidence measured:
//     ownOnsetInBucket), none of S's own facts points elsewhere, and S's ledger has a
//     rollback target; and the alerted service's own decision did not allow
//     (its own release would then explain both);
//   - sandbox_scope: S is a sandbox service, and the review matches the alert.
//
// alerted is Evaluate's decision on the same input; it is never changed:
// the origin can deny S, never allow the alerted service. ok is false when
// the evidence names no other service.
func EvaluateOrigin(in Input, alerted contracts.DecisionV1) (contracts.DecisionV1, bool) {
	o, from, ok := OriginOf(in)
	if !ok {
		return contracts.DecisionV1{}, false
	}
	s, svc := o.Service, alertedService(in)
	oin := originInput(in, s)
	ev := originEvidence(in, o, from)

	share, slo := checkOriginSLO(in, o, svc)
	dep := checkDeploymentRelated(oin, s, ev)
	if alerted.Verdict == contracts.VerdictAllow && !mutant.Off(mutant.GateOriginAlertedAllowed) {
		fail(&dep, "the decision about "+svc+" itself allowed its rollback: its own release explains the regression, and "+s+"'s failures may be its effect")
	}
	checks := []contracts.CheckResult{
		slo,
		checkAllowlist(oin),
		checkCooldown(oin, s),
		checkConfidence(oin),
		dep,
		checkSandboxScope(oin, s),
		checkFreeze(oin, s),
	}
	d := contracts.DecisionV1{
		DecisionID:      contracts.DerivedDecisionID(alerted.DecisionID, s),
		IncidentID:      alerted.IncidentID,
		InvestigationID: in.Review.InvestigationID,
		ReviewID:        in.Review.ReviewID,
		Service:         s,
		Action:          in.Action,
		Verdict:         contracts.VerdictAllow,
		Checks:          checks,
		FailedChecks:    []string{},
		DecidedAt:       in.Now.UTC(),
		ExpiresAt:       in.Now.Add(in.Config.DecisionTTL).UTC(),
		Shadow:          Shadowed(in.Config, s),
	}
	if b := oin.Review.Best; b != nil {
		d.Diagnosis = b.Class
		if finiteUnit(b.Confidence) {
			d.Confidence = b.Confidence
		}
	}
	target, hasTarget := rollbackTarget(oin.Ledger, s)
	if hasTarget {
		d.RollbackTarget = target.Image
		d.CurrentImage = oin.Ledger.Ledger.Releases[len(oin.Ledger.Ledger.Releases)-1].Image
	}
	var steps []string
	for _, c := range checks {
		if !c.Passed {
			d.FailedChecks = append(d.FailedChecks, c.Name)
			steps = append(steps, originNextStep(c, s, svc))
		}
	}
	if len(d.FailedChecks) > 0 {
		d.Verdict = contracts.VerdictDeny
		d.NextStep = strings.Join(steps, " ")
	}
	d.Origin = &contracts.DecisionOrigin{
		AlertedService: svc, AlertedDecisionID: alerted.DecisionID, Signal: o.Signal,
		Share: share, Failures: o.Failures, Total: o.Total,
		Reason: originReason(svc, s, o.Signal, share, dep.Inputs, d.Verdict, target, hasTarget),
	}
	return d, true
}

// originInput is the gate's input as it applies to the origin service s:
// the review about s, and the state the adapter read for s.
func originInput(in Input, s string) Input {
	oin := in
	oin.Review = reviewAbout(in.Review, s)
	oin.Cooldown, oin.Ledger, oin.Freezes = in.Origin.Cooldown, in.Origin.Ledger, in.Origin.Freezes
	if in.Origin.Service != s {
		// State read for another service (or not at all) says nothing of S.
		why := "the adapter read no state for " + strconv.Quote(s)
		oin.Cooldown = CooldownState{Err: why}
		oin.Ledger = LedgerState{Err: why}
		oin.Freezes = FreezeState{Err: why}
	}
	return oin
}

// originEvidence is the investigation's evidence, plus the origin's onset
// as evidence about the origin service when the origin (named by the
// evidence from) carries one.
func originEvidence(in Input, o contracts.FailureOrigin, from string) []contracts.EvidenceV1 {
	ev := belonging(in.Evidence, in.Review.InvestigationID)
	if o.Onset != nil && !o.Onset.IsZero() && !ownOnsetInBucket(ev, o.Service, *o.Onset) {
		// The origin's own onset, as the alerted service's evidence measured
		// it; onset() takes the earliest of it and S's own evidence. Its own
		// id ("<evidence>#origin"): it carries no other fact of that evidence.
		ev = append(ev, contracts.EvidenceV1{ID: from + OriginOnsetSuffix, InvestigationID: in.Review.InvestigationID, Service: o.Service,
			Facts: contracts.Facts{Onset: o.Onset}})
	}
	return ev
}

// ownOnsetInBucket reports whether the origin's onset as the alerted
// service's evidence measured it (at) is a whole minute and S's own evidence
// places S's earliest onset inside that minute: the same departure, placed
// within its bucket from S's own spans (the refinement every alerted service's
// onset gets). The alerted service's overview reads S only by the minute, so
// at is that bucket's start, not an instant the spans showed; S's own onset
// then stands for it, as it would had S alerted. An own onset outside that
// minute is another reading of S, and the earlier of the two stays.
func ownOnsetInBucket(ev []contracts.EvidenceV1, s string, at time.Time) bool {
	own, _, ok := onset(ev, s)
	if !ok || !at.Equal(at.Truncate(time.Minute)) || own.Before(at) {
		return false
	}
	return own.Before(at.Add(time.Minute)) || mutant.Off(mutant.GateOriginOnsetBucket)
}

// reviewAbout narrows a review to the claims about service s: the kept and
// dropped claims whose Service is s, and the best of the kept (highest
// confidence; the first of equals).
func reviewAbout(r contracts.ReviewV1, s string) contracts.ReviewV1 {
	out := r
	out.Kept, out.Dropped, out.Best = nil, nil, nil
	for _, c := range r.Kept {
		if c.Service != s {
			continue
		}
		out.Kept = append(out.Kept, c)
		if out.Best == nil || c.Confidence > out.Best.Confidence {
			b := c
			out.Best = &b
		}
	}
	for _, c := range r.Dropped {
		if c.Claim.Service == s {
			out.Dropped = append(out.Dropped, c)
		}
	}
	return out
}

// about reports whether claim c diagnoses service svc: a claim naming no
// service is about the report's (alerted) service.
func about(c contracts.Claim, svc string) bool { return c.Service == "" || c.Service == svc }

// bestAbout returns r with Best replaced, when it diagnoses another service
// than svc, by the best kept claim about svc (nil when there is none): a
// claim about the origin never lends the alerted service its confidence or
// diagnosis.
func bestAbout(r contracts.ReviewV1, svc string) contracts.ReviewV1 {
	if r.Best == nil || about(*r.Best, svc) {
		return r
	}
	r.Best = nil
	for _, c := range r.Kept {
		if about(c, svc) && (r.Best == nil || c.Confidence > r.Best.Confidence) {
			b := c
			r.Best = &b
		}
	}
	return r
}

// checkOriginSLO is slo_breach for a derived decision: the alert's burn
// rate, read exactly as for the alerted service, and the share of the
// alerted service's new failures that begin in the origin at or above the
// threshold. It returns the share it used: the lower of the stated share
// and failures/total.
func checkOriginSLO(in Input, o contracts.FailureOrigin, svc string) (float64, contracts.CheckResult) {
	base := checkSLOBreach(in)
	inputs := base.Inputs
	th := in.Config.OriginShareThreshold
	share := o.Share
	if o.Total > 0 && o.Failures >= 0 {
		share = math.Min(share, float64(o.Failures)/float64(o.Total))
	}
	inputs["alerted_service"] = svc
	inputs["origin"] = o.Service
	inputs["origin_signal"] = o.Signal
	inputs["origin_share"] = ftoa(share)
	inputs["origin_failures"] = strconv.FormatInt(o.Failures, 10)
	inputs["origin_total"] = strconv.FormatInt(o.Total, 10)
	inputs["origin_share_threshold"] = ftoa(th)
	if o.Operation != "" {
		inputs["origin_operation"] = o.Operation
	}
	if len(o.Path) > 0 {
		inputs["origin_path"] = strings.Join(o.Path, " → ")
	}
	var reasons []string
	if !base.Passed {
		reasons = append(reasons, base.Reason)
	}
	var why []string
	switch {
	case math.IsNaN(th) || th <= 0 || th > 1:
		why = append(why, "no origin share threshold in (0, 1] is configured: unknown fails closed")
	case math.IsNaN(o.Share) || o.Share < 0 || o.Share > 1:
		why = append(why, "the origin's share "+ftoa(o.Share)+" is not a number in [0, 1]")
	case o.Total <= 0 || o.Failures < 0 || o.Failures > o.Total:
		why = append(why, "the origin's counts ("+strconv.FormatInt(o.Failures, 10)+" of "+strconv.FormatInt(o.Total, 10)+" failing traces) do not make a share")
	case share < th:
		why = append(why, "only "+pct(share)+" of "+svc+"'s "+failuresWord(o.Signal)+" begin in "+o.Service+", under the "+pct(th)+" threshold: "+o.Service+" is not where most of them begin")
	}
	if o.Signal != SignalErrors && o.Signal != SignalLatency {
		why = append(why, "the origin's signal "+strconv.Quote(o.Signal)+" is neither errors nor latency")
	}
	if !mutant.Off(mutant.GateOriginShare) {
		reasons = append(reasons, why...)
	}
	return share, result(contracts.CheckSLOBreach, reasons,
		"burn rate "+inputs["burn_rate"]+" ≥ "+inputs["threshold"]+" on "+svc+"; "+pct(share)+" of its "+failuresWord(o.Signal)+" begin in "+o.Service+" (threshold "+pct(th)+")", inputs)
}

// fail marks c failed with one more reason.
func fail(c *contracts.CheckResult, reason string) {
	if c.Passed {
		c.Passed, c.Reason = false, reason
		return
	}
	c.Reason += "; " + reason
}

func failuresWord(signal string) string {
	if signal == SignalLatency {
		return "new slow requests"
	}
	return "new failures"
}

// pct writes a share as a percentage to one decimal at most ("71%", "49.9%").
func pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ftoa(f)
	}
	return strconv.FormatFloat(math.Round(f*1000)/10, 'f', -1, 64) + "%"
}

// originReason is the derived decision in the issue's words: "checkout
// burns its budget; 71% of its new failures begin in payment, released
// 2.2.0 5m0s before; roll payment back to 2.1.9?" The release and the
// question appear only when the checks established them.
func originReason(svc, s, signal string, share float64, dep map[string]string, verdict string, target contracts.Release, hasTarget bool) string {
	b := strings.Builder{}
	b.WriteString(orUnknown(svc) + " burns its budget; " + pct(share) + " of its " + failuresWord(signal) + " begin in " + s)
	if version, at, ok := markerParts(dep["marker"]); ok {
		if on, err := time.Parse(time.RFC3339, dep["onset"]); err == nil && !at.After(on) {
			b.WriteString(", released " + version + " " + on.Sub(at).String() + " before")
		}
	}
	if verdict == contracts.VerdictAllow && hasTarget {
		v := target.Version
		if v == "" {
			v = target.Image
		}
		b.WriteString("; roll " + s + " back to " + v + "?")
	}
	return b.String()
}

// markerParts splits markerText's "service@version@time".
func markerParts(m string) (string, time.Time, bool) {
	i, j := strings.Index(m, "@"), strings.LastIndex(m, "@")
	if i < 0 || j <= i {
		return "", time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339, m[j+1:])
	if err != nil {
		return "", time.Time{}, false
	}
	return m[i+1 : j], at, true
}

// originNextStep tells the human what to do about a failed check of a
// derived decision: the share and the alerted service's own allow have
// their own words; every other check reads as for any decision on s.
func originNextStep(c contracts.CheckResult, s, svc string) string {
	switch {
	case c.Name == contracts.CheckSLOBreach && strings.Contains(c.Reason, "begin in"):
		return "slo_breach: " + s + " is not where most of " + svc + "'s new failures begin; read the failure origin in the incident report and find where the rest begin before rolling anything back."
	case c.Name == contracts.CheckDeploymentRelated && strings.Contains(c.Reason, "itself allowed its rollback"):
		return "deployment_related: roll back " + svc + " (its own decision allowed it) and check whether " + s + " recovers with it before touching " + s + "."
	}
	return nextStep(c, s)
}
