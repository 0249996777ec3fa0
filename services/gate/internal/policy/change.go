package policy

import (
	"slices"
	"strconv"
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// changeClasses are the diagnoses that claim a release changed what the
// service asks or answers (a prompt, a setting) rather than its code. Three
// checks read them as one set: they need the sandbox to show a change the
// release brought (changeReasons); an onset placed only by a shift of span
// attributes may support them and nothing else (qualityOnsetReasons); a
// dependency slowing at its usual call rate does not contradict them
// (slowDependencies).
var changeClasses = []string{"prompt_regression", "config_regression"}

// changeReasons: a prompt or configuration regression holds only when the
// sandbox saw what the release changed: a shift of the service's own span
// attributes (contracts.Facts.QualityShifts: token counts, a finish reason,
// a template or flag value), or at least MinReleaseErrors requests of the
// running service.version failing with a status its history never showed,
// not shared by the other versions (contracts.Facts.Release). Without it a
// marker before the onset is all the claim stands on, and a regression of
// unknown cause that follows a deploy (one endpoint slower, background
// errors: worlds s1018-w023, s18-w047 and three more) was rolled back on
// persona:quality's word. The share of the running version's requests
// (bad_release's MinReleaseErrorShare) is asked only where no operation's
// error rate departed: a configuration may break one rare operation
// (sig-one-rpc-config-cart: 9 of 243 requests; newErrorsSeen). No history
// before the version is asked either: a configuration
// release may keep service.version (hw-flag-flip-recs-ranker, where every
// error is new). The new signature must carry more than half of the running
// version's errors since the onset (as the rules investigator asks of a
// latent flag or caller fault): background errors of a few generic texts
// that the version's short history happened not to show once make a "new"
// signature that is a minority of the same mixture, and with the old
// version gone at the deploy none shares it (a regression of unknown cause
// after a deploy: 4 "connection reset by peer" of 21 errors, the other 17
// with texts the 7 minutes of history showed, was rolled back). Nor may it
// come from the service giving up on a dependency that fails or slowed at
// its usual call rate (waitedOn).
func changeReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	if in.Review.Best == nil || !slices.Contains(changeClasses, in.Review.Best.Class) || mutant.Off(mutant.GateChangeEvidence) {
		return nil
	}
	for _, e := range ev {
		if e.Service == svc && len(e.Facts.QualityShifts) > 0 {
			inputs["change"] = "quality_shift " + e.Facts.QualityShifts[0].Attribute
			return nil
		}
	}
	r := releaseFacts(svc, ev)
	waited := waitedOn(r, svc, ev)
	if r != nil && r.NewErrors >= MinReleaseErrors && !sharedByOthers(r) && (2*r.NewErrors > r.Errors || mutant.Off(mutant.GateChangeNewShare)) && len(waited) == 0 {
		if seen := newErrorsSeen(r, svc, ev, settingsRelease(in.Ledger, svc, ev)); seen != "" {
			inputs["change"] = "new_errors " + strconv.FormatInt(r.NewErrors, 10) + "/" + strconv.FormatInt(r.Requests, 10) + " of " + r.Version + seen
			return nil
		}
	}
	reason := "no evidence shows what a " + in.Review.Best.Class + " of " + svc + " changed: no attribute of its spans shifted, and no status its history never showed failed " +
		strconv.Itoa(MinReleaseErrors) + " or more requests of its running version, most of its errors since the onset, and " + ftoa(100*MinReleaseErrorShare) +
		"% of its requests or an operation whose error rate left its baseline"
	if len(waited) > 0 {
		reason += "; it gave up waiting on " + strings.Join(waited, ", ") + " (its new " + strconv.Quote(r.NewSignature) + " or its failed calls to them say so), which failed or slowed at the onset at their usual call rate: " +
			"what a dependency that stopped answering in time makes any version write"
	}
	return []string{reason}
}

// waitedOn returns the dependencies of svc that fail or slowed at the onset
// at their usual call rate and on which the service gave up waiting, by its
// running version's new signature (a timeout, a deadline) or by its failed
// calls to them (nil when none). Its new errors are then what a dependency
// that stopped answering in time makes the service write under any
// version, the first one to meet it included: no evidence of what a release
// changed.
//   - A failing one whose new status says so
//     (contracts.Facts.FailingDependencies, which the sandbox leaves without
//     a peer it shows the service gave up on sooner than it used to,
//     facts.ImpatientPeers: a configuration that cut a timeout on a peer
//     that answers keeps its evidence): sig-retryablehttp-ledger-sync's
//     twin, e2e/retryablehttp_twin_test.go, ledger.internal hanging at
//     08:58 under r323's unchanged client, its "upstream timed out after
//     retries" new with r323, was rolled back on persona:quality's
//     config_regression (mutant gate.change_timeout).
//   - A slow one (contracts.Facts.SlowDependencies), the same outage where
//     the peer's latency left its baseline before its error rate did: its
//     calls slow, then pass the caller's deadline, and the peer is slow, not
//     failing (mutant gate.change_timeout_slow). A cut timeout caps the
//     calls it cuts, it does not slow them.
//   - A failing one whose failed calls mostly say the service gave up
//     (contracts.Facts.TimedOutDependencies), whatever text the service
//     wraps them in: the same twin with "ledger sync failed" over the
//     client's "upstream timed out after retries" was rolled back too
//     (mutant gate.change_timed_out).
//
// A prompt or configuration that made the calls slower, or that broke
// something else while a dependency timed out, is then denied unless its
// spans' attributes shifted (a missed rollback, accepted).
func waitedOn(r *contracts.ReleaseErrors, svc string, ev []contracts.EvidenceV1) []string {
	if r == nil || mutant.Off(mutant.GateChangeTimeout) {
		return nil
	}
	var peers []string
	if contracts.SaysGaveUpWaiting(r.NewSignature) {
		peers = dependencyPeers(svc, ev, func(f contracts.Facts) []string { return f.FailingDependencies })
		if !mutant.Off(mutant.GateChangeTimeoutSlow) {
			peers = append(peers, dependencyPeers(svc, ev, func(f contracts.Facts) []string { return f.SlowDependencies })...)
		}
	}
	if !mutant.Off(mutant.GateChangeTimedOut) {
		peers = append(peers, dependencyPeers(svc, ev, func(f contracts.Facts) []string { return f.TimedOutDependencies })...)
	}
	slices.Sort(peers)
	return slices.Compact(peers)
}

// newErrorsSeen says how the running version's new errors are a regression
// and not stray errors ("" when they are not): they fail at least
// MinReleaseErrorShare of its requests since the onset (bad_release's bar),
// or the service overview found some operation of svc whose error rate left
// its own baseline, significant after the correction for the number of
// operations looked at (contracts.Facts.Departures, signal error_rate): a
// setting that breaks one rare operation fails it far above its baseline
// (sig-one-rpc-config-cart: 9 of 243 requests, EmptyCart 0.2% -> 27%, p
// 8e-9). New errors stand for what a release changed only when they are the
// regression or part of it: on a p95 regression of unknown cause 7 minutes
// after a deploy, 3 "unexpected EOF" in 82 requests (3.7%, spread over two
// routes with none departing; a generic text the version's history of one
// error happened not to show) were rolled back on persona:quality's
// config_regression (s51823-w011).
//
// The operation's departure stands in for the share only where the release
// changed settings (settings, settingsRelease): a code release that fails
// one operation meets bad_release's bar or nothing. On twins of heldout4's
// account-portal (e2e/incidents-version-twins' gen.py --probe) an outside
// cause that failed one route of every version seconds after a code release
// (8.3.2 to 8.4.0), its message new and the old version's failures unkept
// by a head sampler, was rolled back on persona:quality's
// config_regression in 6 of 10 draws (mutant gate.change_op_settings); the
// same reading was denied for bad_release by the share.
func newErrorsSeen(r *contracts.ReleaseErrors, svc string, ev []contracts.EvidenceV1, settings string) string {
	if mutant.Off(mutant.GateChangeRegression) {
		return " (share not asked)"
	}
	if r.Requests > 0 && float64(r.NewErrors) >= MinReleaseErrorShare*float64(r.Requests) {
		return " (" + strconv.FormatFloat(100*float64(r.NewErrors)/float64(r.Requests), 'f', 1, 64) + "% of its requests)"
	}
	if settings == "" && !mutant.Off(mutant.GateChangeOpSettings) {
		return ""
	}
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, d := range e.Facts.Departures {
			if d.Signal == "error_rate" {
				return "; error_rate departure " + d.Operation + " of a release that changed settings (" + settings + ")"
			}
		}
	}
	return ""
}

// sharedByOthers reports whether the other versions, where enough of them
// served since the onset, fail with the running version's new signature at
// OtherVersionShare of its rate or more.
func sharedByOthers(r *contracts.ReleaseErrors) bool {
	if r.OtherRequests < MinOtherRequests || r.Requests == 0 {
		return false
	}
	return float64(r.OtherNewErrors)/float64(r.OtherRequests) >= OtherVersionShare*float64(r.NewErrors)/float64(r.Requests)
}

// configTypes are the deployment.type values of a marker that say the
// release changed settings, not code.
var configTypes = []string{"config", "configuration", "prompt", "flags"}

// settingsRelease says how the running release of svc changed settings
// ("" when nothing says so): the release ledger's (Docker's) running
// version differs from the one before it only in build metadata (the same
// code built with other settings: "5.2.4+cfg.37" to "5.2.4+cfg.38",
// "2026.11.28.1+cfg.56" to "+cfg.57"; an image tag writes "_" for "+"), or
// a deployment marker of that version says its deployment.type is one of
// configTypes (the deploy tool's word: a claim that only opens what the
// share would otherwise ask).
func settingsRelease(l LedgerState, svc string, ev []contracts.EvidenceV1) string {
	cur, ok := runningRelease(l)
	if !ok {
		return ""
	}
	if n := len(l.Ledger.Releases); n >= 2 && onlyBuild(l.Ledger.Releases[n-2].Version, cur.Version) {
		return "the ledger's " + strconv.Quote(l.Ledger.Releases[n-2].Version) + " to " + strconv.Quote(cur.Version) + " changed only build metadata"
	}
	for _, e := range ev {
		for _, m := range e.Facts.DeploymentMarkers {
			if m.Service == svc && m.Version == cur.Version && slices.Contains(configTypes, strings.ToLower(m.Type)) {
				return "its marker's deployment.type " + strconv.Quote(m.Type)
			}
		}
	}
	return ""
}

// onlyBuild is contracts.BuildMetadataOnly's verdict.
func onlyBuild(prev, next string) bool {
	_, ok := contracts.BuildMetadataOnly(prev, next)
	return ok
}
