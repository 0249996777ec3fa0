package policy_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// TestPromptOrConfigNeedsAChange: a prompt or configuration regression is
// rolled back only when the sandbox saw what the release changed, a shift
// of the service's span attributes or new errors of its running version
// (mutant gate.change_evidence: persona:quality's config_regression on a
// regression of unknown cause after a deploy, world s1018-w023, was rolled
// back), carried by more than half of its errors since the onset (mutant
// gate.change_new_share: background errors of generic texts, one of which
// the version's 7 minutes of history missed), and coming with a significant
// departure of some operation's error rate or failing 5% of the version's
// requests (mutant gate.change_regression: 3 stray errors in 82 requests of
// a p95 regression after a deploy, world s51823-w011). Other classes are
// not asked.
func TestPromptOrConfigNeedsAChange(t *testing.T) {
	shift := []contracts.QualityShift{{Attribute: "gen_ai.usage.output_tokens", At: tOnset, Before: 120, Since: 480}}
	few := func(r *contracts.ReleaseErrors) { r.NewErrors, r.NewSignature = 2, "unexpected EOF" }
	noDeparture := func(f *contracts.Facts) { f.Departures = nil }
	p95Departure := func(f *contracts.Facts) {
		f.Departures[0].Signal, f.Departures[0].Before, f.Departures[0].Since = "p95", 120, 310
	}
	failingLedger := func(f *contracts.Facts) { f.FailingDependencies = []string{"ledger.internal"} }
	for _, tc := range []struct {
		name    string
		class   string
		shifts  []contracts.QualityShift
		release func(*contracts.ReleaseErrors)
		allow   bool
		facts   func(*contracts.Facts)
	}{
		{"config: new errors of the running version", "config_regression", nil, func(*contracts.ReleaseErrors) {}, true, nil},
		{"config: new errors with no history (service.version kept)", "config_regression", nil, func(r *contracts.ReleaseErrors) { r.HistoryMinutes = 0 }, true, nil},
		{"prompt: a shift of its span attributes", "prompt_regression", shift, few, true, nil},
		{"config: two new errors, nothing shifted", "config_regression", nil, few, false, nil},
		{"prompt: no new error, nothing shifted", "prompt_regression", nil, func(r *contracts.ReleaseErrors) { r.NewErrors, r.NewSignature = 0, "" }, false, nil},
		{"config: the old version fails the same way", "config_regression", nil, func(r *contracts.ReleaseErrors) { r.OtherRequests, r.OtherNewErrors = 100, 20 }, false, nil},
		{"config: new errors a minority of the version's errors (background texts its short history missed)", "config_regression", nil, func(r *contracts.ReleaseErrors) {
			r.HistoryMinutes, r.HistoryErrors, r.Requests, r.Errors, r.NewErrors, r.NewSignature = 7, 3, 266, 21, 4, "connection reset by peer"
		}, false, nil},
		{"config: 3 new errors in 82 requests, no operation's error rate departed (a p95 regression's stray errors)", "config_regression", nil, func(r *contracts.ReleaseErrors) {
			r.HistoryMinutes, r.HistoryErrors, r.Requests, r.Errors, r.NewErrors, r.NewSignature = 81, 1, 82, 4, 3, "unexpected EOF"
		}, false, noDeparture},
		{"config: 9 new errors in 243 requests, only an operation's p95 departed", "config_regression", nil, func(r *contracts.ReleaseErrors) { r.NewErrors, r.Errors, r.Requests = 9, 9, 243 }, false, p95Departure},
		{"config: new errors fail 13% of the requests, no error departure", "config_regression", nil, func(r *contracts.ReleaseErrors) { r.NewErrors, r.Errors, r.Requests = 5, 6, 38 }, true, p95Departure},
		{"prompt: a shift of its span attributes, no departure asked", "prompt_regression", shift, few, true, noDeparture},
		{"config: a timeout text new with the version while a dependency fails at its usual rate (the ledger outage twin)", "config_regression", nil, func(r *contracts.ReleaseErrors) {
			r.NewSignature = "upstream timed out after retries"
		}, false, failingLedger},
		{"config: the same timeout text, no dependency failing", "config_regression", nil, func(r *contracts.ReleaseErrors) { r.NewSignature = "upstream timed out after retries" }, true, nil},
		{"config: a deadline text while a dependency fails", "config_regression", nil, func(r *contracts.ReleaseErrors) { r.NewSignature = "context deadline exceeded" }, false, failingLedger},
		{"config: a refusal text new with the version while a dependency fails (credentials)", "config_regression", nil, func(r *contracts.ReleaseErrors) { r.NewSignature = "401 Unauthorized" }, true, failingLedger},
		{"config: not measured", "config_regression", nil, nil, false, nil},
		{"retry storm: not asked", "retry_storm", nil, few, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			f := &in.Evidence[0].Facts
			f.QualityShifts = tc.shifts
			if tc.facts != nil {
				tc.facts(f)
			}
			if tc.release == nil {
				f.Release = nil
			} else {
				tc.release(f.Release)
			}
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, d.Checks[4].Reason, "changed")
		})
	}
}

// TestGaveUpWaitingIsNoChange: a new status of the running version that
// says the service gave up waiting (a timeout, a deadline) is what a
// dependency that stopped answering in time makes any version write, the
// first to meet it included, so it shows no change of a prompt or
// configuration release while a dependency of the service failed (mutant
// gate.change_timeout: the ledger outage twin of
// sig-retryablehttp-ledger-sync, e2e/retryablehttp_twin_test.go) or slowed
// (mutant gate.change_timeout_slow: the same outage where the peer's
// latency left its baseline first) at the onset at its usual call rate;
// nor is any new status while the failed calls to a failing dependency
// mostly say the service gave up (mutant gate.change_timed_out: the same
// twin with "ledger sync failed" over the client's timeout). Another new
// text over calls that did not time out, a shift of the spans' attributes,
// or a peer of another service keep the claim.
func TestGaveUpWaitingIsNoChange(t *testing.T) {
	shift := []contracts.QualityShift{{Attribute: "gen_ai.usage.output_tokens", At: tOnset, Before: 120, Since: 480}}
	failing := func(f *contracts.Facts) { f.FailingDependencies = []string{"ledger.internal"} }
	slow := func(f *contracts.Facts) { f.SlowDependencies = []string{"fx-rates.pricing.svc.cluster.local"} }
	timedOut := func(f *contracts.Facts) {
		f.FailingDependencies, f.TimedOutDependencies = []string{"ledger.internal"}, []string{"ledger.internal"}
	}
	for _, tc := range []struct {
		name   string
		class  string
		sig    string
		shifts []contracts.QualityShift
		facts  func(*contracts.Facts)
		other  bool // the peer is on another service's evidence
		allow  bool
	}{
		{"config: a timeout text while a dependency fails (the ledger outage twin)", "config_regression", "upstream timed out after retries", nil, failing, false, false},
		{"config: a timeout text while a dependency slowed", "config_regression", "upstream timed out after retries", nil, slow, false, false},
		{"config: a deadline text while a dependency slowed", "config_regression", "Get \"http://fx-rates/v2/convert\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", nil, slow, false, false},
		{"prompt: a timeout text while the model slowed, nothing shifted", "prompt_regression", "llm request timeout", nil, slow, false, false},
		{"prompt: a timeout text while the model slowed, its output tokens shifted", "prompt_regression", "llm request timeout", shift, slow, false, true},
		{"config: a refusal text while a dependency slowed", "config_regression", "401 Unauthorized", nil, slow, false, true},
		{"config: a timeout text, no dependency failed or slowed", "config_regression", "upstream timed out after retries", nil, nil, false, true},
		{"config: a timeout text while another service's dependency slowed", "config_regression", "upstream timed out after retries", nil, slow, true, true},
		{"config: its own text over calls to a failing dependency that timed out (the wrapped ledger outage twin)", "config_regression", "ledger sync failed", nil, timedOut, false, false},
		{"prompt: its own text over calls to a failing dependency that timed out, nothing shifted", "prompt_regression", "answer failed", nil, timedOut, false, false},
		{"config: its own text over calls to a failing dependency that did not time out (refused credentials)", "config_regression", "ledger sync failed", nil, failing, false, true},
		{"config: its own text while another service's dependency timed out", "config_regression", "ledger sync failed", nil, timedOut, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.QualityShifts = tc.shifts
			in.Evidence[0].Facts.Release.NewSignature = tc.sig
			switch {
			case tc.facts != nil && tc.other:
				ev := contracts.EvidenceV1{ID: "ev-pricing", InvestigationID: invID, Service: "pricing", Tool: contracts.ToolServiceOverview, From: tStarts.Add(-2 * time.Hour), To: tNow}
				tc.facts(&ev.Facts)
				in.Evidence = append(in.Evidence, ev)
			case tc.facts != nil:
				tc.facts(&in.Evidence[0].Facts)
			}
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			require.Contains(t, d.Checks[4].Reason, "gave up waiting")
		})
	}
}

// TestOneOperationNeedsASettingsRelease: new errors under 5% of the running
// version's requests stand for a prompt or configuration release's change,
// with an operation's error-rate departure, only when the release changed
// settings: the ledger's versions differ only in build metadata, or the
// running version's marker says deployment.type config or prompt. A code
// release that fails one operation meets bad_release's bar or nothing: on
// twins of heldout4's account-portal an outside cause failing one route of
// every version seconds after 8.3.2 → 8.4.0, its message new and the old
// version's failures unkept by a head sampler, was rolled back on
// persona:quality's config_regression. Kills gate.change_op_settings.
func TestOneOperationNeedsASettingsRelease(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		prev     string
		cur      string
		kind     string
		allow    bool
		contains string
	}{
		{"a code release, its marker silent", "v1", "v2", "", false, "changed"},
		{"a code release, its marker says release", "v1", "v2", "release", false, "changed"},
		{"a code release, its marker says config", "v1", "v2", "config", true, `its marker's deployment.type "config"`},
		{"a code release, its marker says prompt", "v1", "v2", "Prompt", true, `deployment.type "Prompt"`},
		{"the same build with other settings", "2026.11.28.1+cfg.56", "2026.11.28.1+cfg.57", "", true, "changed only build metadata"},
		{"an image tag's build metadata", "5.2.4_cfg.37", "5.2.4_cfg.38", "", true, "changed only build metadata"},
		{"build metadata over another core", "5.2.4+cfg.37", "5.3.0+cfg.38", "", false, "changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = "config_regression", "config_regression"
			rs := in.Ledger.Ledger.Releases
			rs[0].Version, rs[1].Version = tc.prev, tc.cur
			markers(&in, contracts.DeploymentMarker{Service: svc, Version: tc.cur, PreviousVersion: tc.prev, At: tMarker, Type: tc.kind})
			r := in.Evidence[0].Facts.Release
			r.Version, r.NewErrors, r.Errors, r.Requests = tc.cur, 3, 3, 243
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				require.Contains(t, d.Checks[4].Inputs["change"], tc.contains)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, d.Checks[4].Reason, tc.contains)
		})
	}
}
