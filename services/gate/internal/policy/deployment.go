package policy

import (
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// deploymentClass reports whether class is a deployment-class entry of the catalogue.
func deploymentClass(cat []contracts.FailureClass, class string) (known, deployment bool) {
	for _, c := range cat {
		if c.Name == class {
			return true, c.DeploymentClass
		}
	}
	return false, false
}

// onset returns the earliest onset that the sandbox measured for svc, and the
// evidence it came from. The earliest is the strictest: a marker must precede
// every measured start of the regression.
func onset(ev []contracts.EvidenceV1, svc string) (time.Time, string, bool) {
	var best time.Time
	var from string
	for _, e := range ev {
		o := e.Facts.Onset
		if e.Service != svc || o == nil || o.IsZero() {
			continue
		}
		if from == "" || o.Before(best) {
			best, from = *o, e.ID
		}
	}
	return best, from, from != ""
}

func rollbackTarget(l LedgerState, svc string) (contracts.Release, bool) {
	if l.Err != "" || !l.Found || l.Ledger.Service != svc {
		return contracts.Release{}, false
	}
	t, ok := l.Ledger.RollbackTarget()
	if !ok || t.Image == "" {
		return contracts.Release{}, false
	}
	return t, true
}

// checkDeploymentRelated passes only when four things hold, each from
// values no model wrote: the reviewed diagnosis is deployment-class in the
// catalogue; a deployment-marker query of this investigation covered
// [onset−window, onset] and found a deployment.marker span of this service in
// [onset−window, onset), the latest of which is the release running now; the
// sandbox's facts show no other explanation (other services regressing at the
// same time, a surge of inbound traffic, a dependency failing at its usual
// call rate or slowing by most of the added latency at it (unless
// the diagnosis is a prompt or configuration release), its own connection pool failing or waiting, a process of the
// running version restarting, its own logs naming memory, heap, GC or CPU
// pressure since the onset, a runtime attribute of its spans rising since
// the onset, or — for a bad release — errors that are not new with the running
// version, or — for a retry storm — calls that did not multiply, or — for a
// prompt or configuration regression — nothing the release changed); and
// the release ledger has a rollback target.
func checkDeploymentRelated(in Input, svc string, ev []contracts.EvidenceV1) contracts.CheckResult {
	inputs := map[string]string{"marker_window": in.Config.MarkerWindow.String(), "evidence_used": strconv.Itoa(len(ev))}
	if in.EvidenceRejected > 0 {
		inputs["evidence_rejected"] = strconv.Itoa(in.EvidenceRejected)
	}
	ev = ledgerAgreedReleases(in, svc, ev, inputs)
	reasons := diagnosisReasons(in, inputs)
	reasons = append(reasons, markerReasons(in, svc, ev, inputs)...)
	reasons = append(reasons, qualityOnsetReasons(in, svc, ev, inputs)...)
	reasons = append(reasons, statusOnsetReasons(in, svc, ev, inputs)...)
	// No other explanation in the telemetry: a release of this one service
	// cannot explain a regression that other services share, or one that came
	// with a surge of inbound traffic.
	if alt := alternatives(in, svc, ev, inputs); !mutant.Off(mutant.GateAlternativeCause) {
		reasons = append(reasons, alt...)
	}
	if dep := failingDependencies(in, svc, ev, inputs); !mutant.Off(mutant.GateFailingDependency) {
		reasons = append(reasons, dep...)
	}
	if ro := refusedOriginReasons(in, svc, ev, inputs); !mutant.Off(mutant.GateRefusedOriginRelease) {
		reasons = append(reasons, ro...)
	}
	if rf := retriedFaults(svc, ev, inputs); !mutant.Off(mutant.GateRetriedFault) {
		reasons = append(reasons, rf...)
	}
	if slow := slowDependencies(in, svc, ev, inputs); !mutant.Off(mutant.GateSlowDependency) {
		reasons = append(reasons, slow...)
	}
	if pool := poolExhaustion(svc, ev, inputs); !mutant.Off(mutant.GatePoolExhaustion) {
		reasons = append(reasons, pool...)
	}
	if rs := processRestarts(svc, ev, inputs); !mutant.Off(mutant.GateProcessRestart) {
		reasons = append(reasons, rs...)
	}
	if rp := resourcePressure(svc, ev, inputs); !mutant.Off(mutant.GateResourcePressure) {
		reasons = append(reasons, rp...)
	}
	if rt := runtimeSaturation(svc, ev, inputs); !mutant.Off(mutant.GateRuntimeSaturation) {
		reasons = append(reasons, rt...)
	}
	// The diagnosis's own evidence: a bad release's new errors, a retry
	// storm's multiplied calls.
	if rel := append(releaseReasons(in, svc, ev, inputs), callVolumeReasons(in, svc, ev, inputs)...); !mutant.Off(mutant.GateReleaseErrors) {
		reasons = append(reasons, rel...)
	}
	// A rollback returns to the previous version: it must not fail too.
	if ov := otherVersionReasons(svc, ev, inputs); !mutant.Off(mutant.GateOtherVersionsFail) {
		reasons = append(reasons, ov...)
	}
	// Requests that moved from one region to another: load, not a release.
	reasons = append(reasons, regionShiftReasons(in, svc, ev, inputs)...)
	// Errors confined to a few nodes while the same version serves cleanly
	// on the others: the nodes', not the release's.
	reasons = append(reasons, nodeConfinedReasons(in, svc, ev, inputs)...)
	// A configuration that changed at runtime at the onset is no release.
	reasons = append(reasons, runtimeChangeReasons(in, svc, ev, inputs)...)
	reasons = append(reasons, runtimeAttributeReasons(in, svc, ev, inputs)...)
	reasons = append(reasons, changeReasons(in, svc, ev, inputs)...)
	reasons = append(reasons, targetReasons(in, svc, inputs)...)
	return result(contracts.CheckDeploymentRelated, reasons,
		"deployment-class diagnosis, a marker of "+svc+" before the onset and a rollback target", inputs)
}

// diagnosisReasons: the reviewed best claim's class must be deployment-class
// in the catalogue.
func diagnosisReasons(in Input, inputs map[string]string) []string {
	if in.Review.Best == nil {
		return []string{"no reviewed diagnosis"}
	}
	class := in.Review.Best.Class
	inputs["diagnosis"] = class
	known, dep := deploymentClass(in.Config.Catalogue, class)
	inputs["deployment_class"] = strconv.FormatBool(dep)
	switch {
	case mutant.Off(mutant.GateDeploymentClass):
	case !known:
		return []string{"diagnosis " + strconv.Quote(class) + " is not in the catalogue"}
	case !dep:
		return []string{"diagnosis " + class + " is not deployment-class: a rollback would not fix it"}
	}
	return nil
}

// runningRelease is the ledger's running release of the service: its last
// entry; false when the ledger could not be read, has no entry or is empty.
func runningRelease(l LedgerState) (contracts.Release, bool) {
	if l.Err != "" || !l.Found || len(l.Ledger.Releases) == 0 {
		return contracts.Release{}, false
	}
	return l.Ledger.Releases[len(l.Ledger.Releases)-1], true
}

// recordCurrent records the ledger's running version and image in inputs.
func recordCurrent(l LedgerState, inputs map[string]string) {
	cur, ok := runningRelease(l)
	if !ok {
		return
	}
	inputs["current_version"] = cur.Version
	if cur.Image != "" {
		inputs["current_image"] = cur.Image // for humans: the current → target move
	}
}

// markerReasons: a deployment-marker query covered the window before the
// measured onset and found a marker of this service that the release ledger
// corroborates (corroborate).
func markerReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	on, onFrom, ok := onset(ev, svc)
	recordCurrent(in.Ledger, inputs)
	switch {
	case mutant.Off(mutant.GateMarkerBeforeOnset):
		return nil
	case !ok:
		why := ""
		for _, e := range ev {
			if e.Service == svc && e.Facts.OnsetUnknown != "" {
				why = " (" + e.Facts.OnsetUnknown + ")"
				inputs["onset_unknown"] = e.Facts.OnsetUnknown
				break
			}
		}
		return []string{"no evidence measured the regression's onset for " + strconv.Quote(svc) + why + ": a marker cannot be placed before it"}
	}
	lo := on.Add(-in.Config.MarkerWindow)
	inputs["onset"] = ttoa(on)
	inputs["onset_evidence"] = onFrom
	inputs["window"] = ttoa(lo) + "/" + ttoa(on)
	queries, markers := markersInWindow(svc, ev, lo, on, serviceEnvironments(in, svc, ev, inputs), inputs)
	switch {
	case len(queries) == 0:
		return []string{"no deployment-marker query of " + strconv.Quote(svc) + " covered " + ttoa(lo) + " to " + ttoa(on) + ": the investigation never looked"}
	case len(markers) == 0:
		return []string{"no deployment.marker span of " + svc + " lies in the " + in.Config.MarkerWindow.String() + " before the onset " + ttoa(on)}
	}
	chosen, why := corroborate(in, svc, markers, on, inputs)
	if chosen != nil && chosen.TraceID != "" {
		inputs["marker_trace_id"] = chosen.TraceID // for humans: the marker's trace in SigNoz
	}
	if why != "" {
		return []string{why}
	}
	if chosen != nil {
		inputs["marker"] = markerText(chosen)
	}
	return nil
}

// corroborate returns the marker of markers (those of svc in the window
// before the onset) that counts, or why none does. A span is a claim and
// the release ledger, built from what Docker saw start, is the witness
// (DESIGN.md rule 15): a marker counts only when it names the version the
// ledger says runs now, the ledger saw that version start within
// MarkerTolerance of the marker's timestamp, and that start was not after
// the onset. Of the markers that agree, the latest counts.
//
// A contradicted marker is skipped, named in inputs with its reason, and
// never denies by itself: a marker the ledger contradicts is no evidence
// either way, so a forged, leaked or re-emitted one placed after the real
// marker can neither buy a rollback (it never counts) nor block a right one
// (the real marker still counts). What it cannot be is the only marker: with
// none that agrees, the check fails. A ledger with no running release or no
// start time for it fails closed: nothing can be corroborated.
func corroborate(in Input, svc string, markers []*contracts.DeploymentMarker, on time.Time, inputs map[string]string) (*contracts.DeploymentMarker, string) {
	cur, ok := runningRelease(in.Ledger)
	if mutant.Off(mutant.GateMarkerLedgerAgree) {
		// The check before corroboration: the latest marker, whose version
		// must be the ledger's, whenever the ledger's start.
		latest := markers[0]
		for _, m := range markers[1:] {
			if m.At.After(latest.At) {
				latest = m
			}
		}
		if ok && latest.Version != cur.Version {
			return latest, "the latest deployment before the onset is version " + strconv.Quote(latest.Version) + " but the ledger says " + strconv.Quote(cur.Version) + " runs now: a rollback would not undo it"
		}
		return latest, ""
	}
	tol := in.Config.MarkerTolerance
	inputs["marker_tolerance"] = tol.String()
	switch {
	case !ok:
		return nil, "the release ledger names no running release of " + strconv.Quote(svc) + ": no marker can be corroborated"
	case cur.DeployedAt.IsZero():
		return nil, "the release ledger has no start time for the running release " + strconv.Quote(cur.Version) + " of " + svc + ": no marker can be corroborated"
	}
	inputs["current_started"] = ttoa(cur.DeployedAt)
	var chosen *contracts.DeploymentMarker
	var contradicted []string
	for _, m := range markers {
		if why := contradiction(m, cur, on, tol); why != "" {
			contradicted = append(contradicted, markerText(m)+": "+why)
			continue
		}
		if chosen == nil || m.At.After(chosen.At) {
			chosen = m
		}
	}
	if len(contradicted) > 0 {
		named := contradicted[:min(len(contradicted), maxContradicted)]
		inputs["markers_contradicted"] = strings.Join(named, "; ")
		if n := len(contradicted) - len(named); n > 0 {
			inputs["markers_contradicted"] += "; and " + strconv.Itoa(n) + " more"
		}
	}
	if chosen == nil {
		why := "no deployment.marker of " + svc + " before the onset agrees with the release ledger: " + contradicted[0]
		if n := len(contradicted) - 1; n > 0 {
			why += " (and " + strconv.Itoa(n) + " more, in markers_contradicted)"
		}
		return nil, why
	}
	return chosen, ""
}

// maxContradicted bounds how many contradicted markers a decision names: a
// flood of forged spans must not grow the signed decision without bound.
const maxContradicted = 10

// contradiction says how the ledger's running release cur contradicts the
// marker m, or "" when it agrees.
func contradiction(m *contracts.DeploymentMarker, cur contracts.Release, on time.Time, tol time.Duration) string {
	said := "marker says " + strconv.Quote(m.Version) + " started " + ttoa(m.At)
	gap := m.At.Sub(cur.DeployedAt)
	switch {
	case m.Version != cur.Version:
		return said + "; the ledger (Docker) runs " + strconv.Quote(cur.Version) + ", started " + ttoa(cur.DeployedAt) + ": a rollback would not undo that release"
	case gap > tol || gap < -tol:
		return said + "; the ledger (Docker) started " + strconv.Quote(cur.Version) + " on " + ttoa(cur.DeployedAt) + ", " + gap.Abs().String() + " apart (tolerance " + tol.String() + ")"
	case cur.DeployedAt.After(on):
		return said + "; the ledger (Docker) started " + strconv.Quote(cur.Version) + " on " + ttoa(cur.DeployedAt) + ", after the onset " + ttoa(on)
	}
	return ""
}

// markersInWindow returns the marker queries of svc that covered [lo, on]
// and the markers of svc in [lo, on) from the environment env says it runs
// in (otherEnvironment); it records every marker it kept or rejected in
// inputs.
func markersInWindow(svc string, ev []contracts.EvidenceV1, lo, on time.Time, env environments, inputs map[string]string) ([]string, []*contracts.DeploymentMarker) {
	var queries, markerIDs, rejected []string
	var kept []*contracts.DeploymentMarker
	for i := range ev {
		e := &ev[i]
		if !e.Facts.MarkerQuery || e.Service != svc || e.From.After(lo) || e.To.Before(on) {
			continue
		}
		queries = append(queries, e.ID)
		for j := range e.Facts.DeploymentMarkers {
			m := &e.Facts.DeploymentMarkers[j]
			switch {
			case m.Service != svc:
				rejected = append(rejected, markerText(m)+" is another service's")
			case !m.At.Before(on):
				rejected = append(rejected, markerText(m)+" is at or after the onset")
			case m.At.Before(lo):
				rejected = append(rejected, markerText(m)+" is older than the window")
			case otherEnvironment(m, env) != "":
				rejected = append(rejected, markerText(m)+" is not this service's deployment: "+otherEnvironment(m, env))
			default:
				markerIDs = append(markerIDs, markerText(m))
				kept = append(kept, m)
			}
		}
	}
	inputs["marker_queries"] = strings.Join(queries, ",")
	inputs["markers_in_window"] = strings.Join(markerIDs, ",")
	if len(rejected) > 0 {
		inputs["markers_rejected"] = strings.Join(rejected, "; ")
	}
	return queries, kept
}

// targetReasons: the deployer's ledger has a release to roll back to.
func targetReasons(in Input, svc string, inputs map[string]string) []string {
	t, ok := rollbackTarget(in.Ledger, svc)
	switch {
	case mutant.Off(mutant.GateRollbackTarget):
	case in.Ledger.Err != "":
		return []string{"the release ledger could not be read (" + in.Ledger.Err + ")"}
	case !in.Ledger.Found:
		return []string{"the release ledger has no entry for " + strconv.Quote(svc)}
	case in.Ledger.Ledger.Service != svc:
		return []string{"the release ledger entry names service " + strconv.Quote(in.Ledger.Ledger.Service)}
	case !ok:
		return []string{"the release ledger has no earlier release to roll back to"}
	default:
		inputs["rollback_target"] = t.Image
	}
	return nil
}

func markerText(m *contracts.DeploymentMarker) string {
	return m.Service + "@" + m.Version + "@" + ttoa(m.At)
}
