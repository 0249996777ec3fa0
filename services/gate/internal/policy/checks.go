package policy

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// burnRateKeys are the labels and annotations INCIDENT-FORMAT.md reads the
// burn rate from, in order; labels before annotations.
var burnRateKeys = []string{"burn_rate", "slo_burn_rate", "burnRate"}

func result(name string, reasons []string, pass string, inputs map[string]string) contracts.CheckResult {
	if len(reasons) == 0 {
		return contracts.CheckResult{Name: name, Passed: true, Reason: pass, Inputs: inputs}
	}
	return contracts.CheckResult{Name: name, Reason: strings.Join(reasons, "; "), Inputs: inputs}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func ttoa(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// finiteUnit reports whether f is a usable confidence: finite and in [0, 1].
func finiteUnit(f float64) bool { return !math.IsNaN(f) && f >= 0 && f <= 1 }

// readable returns f when it is a usable burn rate (finite, not negative), else 0.
func readable(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0
	}
	return f
}

// BurnRate returns the burn rate the gate believes for a verified alert and
// where it came from. The gate re-reads the signed labels and annotations by
// INCIDENT-FORMAT.md's rule and takes the lower of that and the ingester's
// field: a value that appears only in free text (a description, a summary)
// is no burn rate, and NaN, ±Inf, negative or missing all read as 0.
func BurnRate(a contracts.AlertV1) (float64, string) {
	derived, src := 0.0, ""
	for _, m := range []struct {
		kind string
		kv   map[string]string
	}{{"labels", a.Labels}, {"annotations", a.Annotations}} {
		for _, k := range burnRateKeys {
			v, ok := m.kv[k]
			if !ok {
				continue
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
				continue
			}
			derived, src = f, m.kind+"."+k
			break
		}
		if src != "" {
			break
		}
	}
	if src == "" {
		return 0, ""
	}
	return math.Min(readable(a.BurnRate), derived), src
}

func checkSLOBreach(in Input) contracts.CheckResult {
	th := in.Config.BurnRateThreshold
	inputs := map[string]string{"threshold": ftoa(th)}
	var reasons []string
	if in.Alert == nil {
		inputs["burn_rate"] = "0"
		reasons = append(reasons, "the alert envelope did not verify ("+in.AlertErr+"), so its burn rate reads as 0")
		if mutant.Off(mutant.GateSLOBreach) {
			reasons = nil
		}
		return result(contracts.CheckSLOBreach, reasons, "", inputs)
	}
	a := in.Alert
	br, src := BurnRate(*a)
	inputs["burn_rate"] = ftoa(br)
	inputs["burn_rate_source"] = src
	inputs["alert_burn_rate"] = ftoa(a.BurnRate)
	inputs["alert_status"] = a.Status
	switch {
	case a.Test:
		reasons = append(reasons, "the alert is the channel's test notification")
	case a.NoData:
		reasons = append(reasons, "the alert is a no-data alert: there is no breach to measure")
	case a.Status != contracts.AlertFiring:
		reasons = append(reasons, "the alert is "+strconv.Quote(a.Status)+", not firing")
	}
	if src == "" {
		reasons = append(reasons, "no burn_rate, slo_burn_rate or burnRate label or annotation holds a finite, non-negative number: burn rate reads as 0")
	}
	if br < th || math.IsNaN(th) {
		reasons = append(reasons, "burn rate "+ftoa(br)+" is below the threshold "+ftoa(th))
	}
	if mutant.Off(mutant.GateSLOBreach) {
		reasons = nil
	}
	return result(contracts.CheckSLOBreach, reasons, "burn rate "+ftoa(br)+" ≥ "+ftoa(th), inputs)
}

func checkAllowlist(in Input) contracts.CheckResult {
	inputs := map[string]string{"action": in.Action, "allowlist": strings.Join(in.Config.Actions, ",")}
	var reasons []string
	if !mutant.Off(mutant.GateAllowlist) && (in.Action == "" || !slices.Contains(in.Config.Actions, in.Action) || !slices.Contains(KnownActions, in.Action)) {
		reasons = append(reasons, "action "+strconv.Quote(in.Action)+" is not in the allowlist")
	}
	return result(contracts.CheckAllowlist, reasons, "action "+in.Action+" is allowlisted", inputs)
}

func checkCooldown(in Input, svc string) contracts.CheckResult {
	cd := in.Config.Cooldown
	inputs := map[string]string{"cooldown": cd.String(), "now": ttoa(in.Now)}
	var reasons []string
	switch {
	case in.Cooldown.Err != "":
		inputs["store"] = "unreadable"
		reasons = append(reasons, "the action ledger could not be read ("+in.Cooldown.Err+"): unknown fails closed")
	case !in.Cooldown.Found:
		inputs["store"] = "no action recorded"
	default:
		last := in.Cooldown.Last
		inputs["store"] = "action recorded"
		inputs["last_action_id"] = last.ActionID
		inputs["last_action_at"] = ttoa(last.At)
		inputs["free_at"] = ttoa(last.At.Add(cd))
		if last.Service != svc {
			reasons = append(reasons, "the ledger entry names service "+strconv.Quote(last.Service)+", not "+strconv.Quote(svc))
		}
		if elapsed := in.Now.Sub(last.At); elapsed < cd {
			reasons = append(reasons, "last action "+last.ActionID+" at "+ttoa(last.At)+" is within the "+cd.String()+" cooldown (free at "+ttoa(last.At.Add(cd))+")")
		}
	}
	if mutant.Off(mutant.GateCooldown) {
		reasons = nil
	}
	return result(contracts.CheckCooldown, reasons, "no action on "+svc+" in the last "+cd.String(), inputs)
}

func checkConfidence(in Input) contracts.CheckResult {
	r := in.Review
	th := in.Config.ConfidenceThreshold
	inputs := map[string]string{
		"threshold":               ftoa(th),
		"kept_claims":             strconv.Itoa(len(r.Kept)),
		"dropped_claims":          strconv.Itoa(len(r.Dropped)),
		"investigation_completed": strconv.FormatBool(r.InvestigationCompleted),
		"insufficient_evidence":   strconv.FormatBool(r.InsufficientEvidence),
	}
	var reasons []string
	if !r.InvestigationCompleted {
		reasons = append(reasons, "the investigation did not complete ("+orDash(r.IncompleteReason)+"): an incomplete investigation can never approve")
	}
	if r.InsufficientEvidence {
		reasons = append(reasons, "the reviewer found insufficient evidence")
	}
	best := r.Best
	if best == nil {
		reasons = append(reasons, "no claim survived review: there is no reviewed confidence")
		if mutant.Off(mutant.GateConfidence) {
			reasons = nil
		}
		return result(contracts.CheckConfidence, reasons, "", inputs)
	}
	inputs["best_claim"] = best.ID
	inputs["confidence"] = ftoa(best.Confidence)
	if !slices.ContainsFunc(r.Kept, func(c contracts.Claim) bool {
		return c.ID == best.ID && c.Class == best.Class && c.Confidence == best.Confidence
	}) {
		reasons = append(reasons, "the best claim "+strconv.Quote(best.ID)+" is not among the kept claims")
	}
	switch {
	case !finiteUnit(best.Confidence):
		reasons = append(reasons, "confidence "+ftoa(best.Confidence)+" is not a number in [0, 1]")
	case best.Confidence < th || math.IsNaN(th):
		reasons = append(reasons, "best reviewed confidence "+ftoa(best.Confidence)+" is below the threshold "+ftoa(th))
	}
	if mutant.Off(mutant.GateConfidence) {
		reasons = nil
	}
	return result(contracts.CheckConfidence, reasons, "best reviewed claim "+best.ID+" has confidence "+ftoa(best.Confidence)+" ≥ "+ftoa(th), inputs)
}

func checkSandboxScope(in Input, svc string) contracts.CheckResult {
	inputs := map[string]string{"service": svc, "sandbox_services": strings.Join(in.Config.SandboxServices, ",")}
	var reasons []string
	if in.Alert != nil {
		if in.Review.Service != in.Alert.Service {
			reasons = append(reasons, "the review names service "+strconv.Quote(in.Review.Service)+" but the signed alert names "+strconv.Quote(in.Alert.Service))
		}
		if in.Review.IncidentID != in.Alert.IncidentID {
			reasons = append(reasons, "the review is for incident "+strconv.Quote(in.Review.IncidentID)+" but the signed alert is "+strconv.Quote(in.Alert.IncidentID))
		}
	} else {
		reasons = append(reasons, "the alert envelope did not verify: the service is unknown")
	}
	switch {
	case svc == "":
		reasons = append(reasons, "the alert names no service: out of scope")
	case !slices.Contains(in.Config.SandboxServices, svc):
		reasons = append(reasons, "service "+strconv.Quote(svc)+" is not a configured sandbox service")
	}
	if mutant.Off(mutant.GateSandboxScope) {
		reasons = nil
	}
	return result(contracts.CheckSandboxScope, reasons, "service "+svc+" is a sandbox service", inputs)
}

func orDash(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

// BurnRateText formats a burn rate the way the gate's inputs show it.
func BurnRateText(f float64) string { return ftoa(f) }
