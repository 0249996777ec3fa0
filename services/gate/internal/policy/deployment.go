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
// same time, or a surge of inbound traffic); and the release ledger has a
// rollback target.
func checkDeploymentRelated(in Input, svc string, ev []contracts.EvidenceV1) contracts.CheckResult {
	win := in.Config.MarkerWindow
	inputs := map[string]string{"marker_window": win.String(), "evidence_used": strconv.Itoa(len(ev))}
	if in.EvidenceRejected > 0 {
		inputs["evidence_rejected"] = strconv.Itoa(in.EvidenceRejected)
	}
	var reasons []string

	// 1. The diagnosis, from the reviewed best claim and the catalogue.
	if in.Review.Best == nil {
		reasons = append(reasons, "no reviewed diagnosis")
	} else {
		class := in.Review.Best.Class
		inputs["diagnosis"] = class
		known, dep := deploymentClass(in.Config.Catalogue, class)
		inputs["deployment_class"] = strconv.FormatBool(dep)
		switch {
		case mutant.Off(mutant.GateDeploymentClass):
		case !known:
			reasons = append(reasons, "diagnosis "+strconv.Quote(class)+" is not in the catalogue")
		case !dep:
			reasons = append(reasons, "diagnosis "+class+" is not deployment-class: a rollback would not fix it")
		}
	}

	// 2. The marker, from sandbox facts only.
	on, onFrom, ok := onset(ev, svc)
	var current string
	if l := in.Ledger; l.Err == "" && l.Found && len(l.Ledger.Releases) > 0 {
		cur := l.Ledger.Releases[len(l.Ledger.Releases)-1]
		current = cur.Version
		inputs["current_version"] = current
		if cur.Image != "" {
			inputs["current_image"] = cur.Image // for humans: the current → target move
		}
	}
	switch {
	case mutant.Off(mutant.GateMarkerBeforeOnset):
	case !ok:
		why := ""
		for _, e := range ev {
			if e.Service == svc && e.Facts.OnsetUnknown != "" {
				why = " (" + e.Facts.OnsetUnknown + ")"
				inputs["onset_unknown"] = e.Facts.OnsetUnknown
				break
			}
		}
		reasons = append(reasons, "no evidence measured the regression's onset for "+strconv.Quote(svc)+why+": a marker cannot be placed before it")
	default:
		lo := on.Add(-win)
		inputs["onset"] = ttoa(on)
		inputs["onset_evidence"] = onFrom
		inputs["window"] = ttoa(lo) + "/" + ttoa(on)
		var queries, markerIDs, rejected []string
		var chosen *contracts.DeploymentMarker
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
				default:
					markerIDs = append(markerIDs, markerText(m))
					if chosen == nil || m.At.After(chosen.At) {
						chosen = m
					}
				}
			}
		}
		inputs["marker_queries"] = strings.Join(queries, ",")
		inputs["markers_in_window"] = strings.Join(markerIDs, ",")
		if len(rejected) > 0 {
			inputs["markers_rejected"] = strings.Join(rejected, "; ")
		}
		switch {
		case len(queries) == 0:
			reasons = append(reasons, "no deployment-marker query of "+strconv.Quote(svc)+" covered "+ttoa(lo)+" to "+ttoa(on)+": the investigation never looked")
		case chosen == nil:
			reasons = append(reasons, "no deployment.marker span of "+svc+" lies in the "+win.String()+" before the onset "+ttoa(on))
		case current == "":
			// The ledger's own reason below says why there is no current version.
			inputs["marker"] = markerText(chosen)
		case chosen.Version != current:
			reasons = append(reasons, "the latest deployment before the onset is version "+strconv.Quote(chosen.Version)+" but the ledger says "+strconv.Quote(current)+" runs now: a rollback would not undo it")
		default:
			inputs["marker"] = markerText(chosen)
		}
		if chosen != nil && chosen.TraceID != "" {
			inputs["marker_trace_id"] = chosen.TraceID // for humans: the marker's trace in SigNoz
		}
	}

	// 3. No other explanation in the telemetry: a release of this one service
	// cannot explain a regression that other services share, or one that came
	// with a surge of inbound traffic.
	if alt := alternatives(in, svc, ev, inputs); !mutant.Off(mutant.GateAlternativeCause) {
		reasons = append(reasons, alt...)
	}

	// 4. The rollback target, from the deployer's ledger.
	t, ok := rollbackTarget(in.Ledger, svc)
	switch {
	case mutant.Off(mutant.GateRollbackTarget):
	case in.Ledger.Err != "":
		reasons = append(reasons, "the release ledger could not be read ("+in.Ledger.Err+")")
	case !in.Ledger.Found:
		reasons = append(reasons, "the release ledger has no entry for "+strconv.Quote(svc))
	case in.Ledger.Ledger.Service != svc:
		reasons = append(reasons, "the release ledger entry names service "+strconv.Quote(in.Ledger.Ledger.Service))
	case !ok:
		reasons = append(reasons, "the release ledger has no earlier release to roll back to")
	default:
		inputs["rollback_target"] = t.Image
	}
	return result(contracts.CheckDeploymentRelated, reasons,
		"deployment-class diagnosis, a marker of "+svc+" before the onset and a rollback target", inputs)
}

func markerText(m *contracts.DeploymentMarker) string {
	return m.Service + "@" + m.Version + "@" + ttoa(m.At)
}
