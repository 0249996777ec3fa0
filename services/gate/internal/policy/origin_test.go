package policy_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// The derived fixture (issue 33): the alert fires on shop-api; 71% of its
// new failures begin in payment, whose 2.2.0 started at 10:00, five minutes
// before payment's own onset at 10:05. shop-api has no release of its own in
// the window: its decision denies, payment's allows.
const origin = "payment"

var tPayMarker = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func originating() policy.Input {
	in := allowing()
	in.Config.SandboxServices = []string{svc, origin}
	payClaim := contracts.Claim{ID: "c3", Class: "bad_release", Service: origin, Statement: "payment 2.2.0 fails every charge",
		Confidence: 0.8, EvidenceIDs: []string{"ev-overview", "ev-pay-markers"}}
	own := contracts.Claim{ID: "c1", Class: "bad_release", Statement: "shop-api fails", Confidence: 0.4, EvidenceIDs: []string{"ev-overview"}}
	in.Review.Kept = []contracts.Claim{payClaim, own}
	in.Review.Best = &payClaim // a reviewer that ranks every kept claim together
	ov := &in.Evidence[0].Facts
	ov.Release, ov.PeakCallRatio, ov.PeakCallPeer = nil, nil, ""
	ov.FailingDependencies = []string{origin}
	ov.Origin = &contracts.FailureOrigin{Service: origin, Operation: "POST /charge", Signal: "errors",
		Share: 0.71, Failures: 142, Total: 200, Baseline: 1, Onset: ptr(tOnset), Path: []string{svc, origin}}
	in.Evidence[1].Facts.DeploymentMarkers = nil // shop-api did not deploy
	in.Evidence = append(in.Evidence,
		contracts.EvidenceV1{
			ID: "ev-pay-markers", InvestigationID: invID, Service: origin, Tool: contracts.ToolDeploymentMarkers,
			From: tStarts.Add(-2 * time.Hour), To: tNow,
			Facts: contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{
				{Service: origin, Version: "2.2.0", PreviousVersion: "2.1.9", At: tPayMarker},
			}},
		},
		contracts.EvidenceV1{
			ID: "ev-pay-overview", InvestigationID: invID, Service: origin, Tool: contracts.ToolServiceOverview,
			From: tStarts.Add(-2 * time.Hour), To: tNow,
			Facts: contracts.Facts{Release: &contracts.ReleaseErrors{Version: "2.2.0", FirstSeen: tPayMarker, HistoryMinutes: 120, HistoryErrors: 2,
				Requests: 400, Errors: 150, NewSignature: "charge declined: schema", NewErrors: 140,
				OtherVersions: &contracts.OtherVersionErrors{HistoryRequests: 4800, HistoryErrors: 2}}},
		},
	)
	in.Origin = policy.OriginState{Service: origin, Ledger: policy.LedgerState{Found: true, Ledger: contracts.ReleaseLedgerV1{
		Project: "shop", Service: origin,
		Releases: []contracts.Release{
			{Version: "2.1.9", Image: "agentk-demo/payment:2.1.9", DeployedAt: tPayMarker.Add(-48 * time.Hour)},
			{Version: "2.2.0", Image: "agentk-demo/payment:2.2.0", DeployedAt: tPayMarker},
		},
	}}}
	return in
}

func check(d contracts.DecisionV1, name string) contracts.CheckResult {
	for _, c := range d.Checks {
		if c.Name == name {
			return c
		}
	}
	return contracts.CheckResult{}
}

func TestOriginDerivedDecisionAllowsTheOrigin(t *testing.T) {
	t.Parallel()
	ds := policy.Decide(originating())
	require.Len(t, ds, 2)
	alerted, derived := ds[0], ds[1]

	require.Equal(t, svc, alerted.Service)
	require.Equal(t, contracts.VerdictDeny, alerted.Verdict, "the origin never allows the alerted service")
	require.Nil(t, alerted.Origin)
	require.Equal(t, "bad_release", alerted.Diagnosis)
	require.InDelta(t, 0.4, alerted.Confidence, 1e-12, "the alerted decision reads only claims about it")

	require.Equal(t, contracts.VerdictAllow, derived.Verdict, "%+v", derived.Checks)
	require.Equal(t, origin, derived.Service)
	require.Equal(t, "decision.review.inv-1.origin.payment", derived.DecisionID)
	require.Equal(t, alerted.IncidentID, derived.IncidentID)
	require.Equal(t, "bad_release", derived.Diagnosis)
	require.InDelta(t, 0.8, derived.Confidence, 1e-12)
	require.Equal(t, "agentk-demo/payment:2.1.9", derived.RollbackTarget)
	require.Equal(t, "agentk-demo/payment:2.2.0", derived.CurrentImage)
	require.Len(t, derived.Checks, 7)
	require.Equal(t, &contracts.DecisionOrigin{
		AlertedService: svc, AlertedDecisionID: alerted.DecisionID, Signal: "errors", Share: 0.71, Failures: 142, Total: 200,
		Reason: "shop-api burns its budget; 71% of its new failures begin in payment, released 2.2.0 5m0s before; roll payment back to 2.1.9?",
	}, derived.Origin)
	slo := check(derived, contracts.CheckSLOBreach)
	require.Equal(t, "0.71", slo.Inputs["origin_share"])
	require.Equal(t, "0.5", slo.Inputs["origin_share_threshold"])
	require.Contains(t, slo.Reason, "71% of its new failures begin in payment")
	dep := check(derived, contracts.CheckDeploymentRelated)
	require.Equal(t, "payment@2.2.0@2026-11-30T10:00:00Z", dep.Inputs["marker"])
	require.Equal(t, "2026-11-30T10:05:00Z", dep.Inputs["onset"])
	require.Equal(t, "ev-overview#origin", dep.Inputs["onset_evidence"])
}

// TestOriginShareBelowThresholdDeniesBoth is the trap of mutant
// gate.origin_share: payment deployed before its onset, and everything else
// about it would pass, but only 30% of shop-api's new failures begin there.
// Neither service may be rolled back.
func TestOriginShareBelowThresholdDeniesBoth(t *testing.T) {
	t.Parallel()
	in := originating()
	o := in.Evidence[0].Facts.Origin
	o.Share, o.Failures = 0.3, 60
	ds := policy.Decide(in)
	require.Len(t, ds, 2)
	require.Equal(t, contracts.VerdictDeny, ds[0].Verdict)
	require.Equal(t, contracts.VerdictDeny, ds[1].Verdict)
	require.Equal(t, []string{contracts.CheckSLOBreach}, ds[1].FailedChecks)
	require.Contains(t, check(ds[1], contracts.CheckSLOBreach).Reason, "only 30% of shop-api's new failures begin in payment, under the 50% threshold")
	require.Contains(t, ds[1].NextStep, "not where most of shop-api's new failures begin")
	require.Equal(t, "shop-api burns its budget; 30% of its new failures begin in payment, released 2.2.0 5m0s before", ds[1].Origin.Reason,
		"no question is asked when the decision denies")
}

// Each case breaks one thing about the origin; the derived decision denies
// naming exactly that check, and the alerted service's stays denied.
func TestOriginEachCheckFailingAloneDenies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		check  string
		mutate func(in *policy.Input)
		reason string
	}{
		{"alert resolved", contracts.CheckSLOBreach, func(in *policy.Input) { in.Alert.Status = contracts.AlertResolved }, "not firing"},
		{"burn rate below threshold", contracts.CheckSLOBreach, func(in *policy.Input) {
			in.Alert.BurnRate, in.Alert.Labels["burn_rate"] = 0.9, "0.9"
		}, "below the threshold"},
		{"share NaN", contracts.CheckSLOBreach, func(in *policy.Input) { in.Evidence[0].Facts.Origin.Share = math.NaN() }, "not a number in [0, 1]"},
		{"share above one", contracts.CheckSLOBreach, func(in *policy.Input) { in.Evidence[0].Facts.Origin.Share = 1.5 }, "not a number in [0, 1]"},
		{"counts say less than the share", contracts.CheckSLOBreach, func(in *policy.Input) { in.Evidence[0].Facts.Origin.Failures = 20 }, "only 10%"},
		{"failures over total", contracts.CheckSLOBreach, func(in *policy.Input) { in.Evidence[0].Facts.Origin.Failures = 300 }, "do not make a share"},
		{"no total", contracts.CheckSLOBreach, func(in *policy.Input) { in.Evidence[0].Facts.Origin.Total = 0 }, "do not make a share"},
		{"unknown signal", contracts.CheckSLOBreach, func(in *policy.Input) { in.Evidence[0].Facts.Origin.Signal = "vibes" }, "neither errors nor latency"},
		{"no share threshold configured", contracts.CheckSLOBreach, func(in *policy.Input) { in.Config.OriginShareThreshold = 0 }, "unknown fails closed"},
		{"payment acted on recently", contracts.CheckCooldown, func(in *policy.Input) {
			in.Origin.Cooldown = policy.CooldownState{Found: true, Last: contracts.CooldownV1{Service: origin, ActionID: "a1", At: tNow.Add(-time.Minute)}}
		}, "within the"},
		{"payment's action ledger unreadable", contracts.CheckCooldown, func(in *policy.Input) { in.Origin.Cooldown.Err = "kv down" }, "unknown fails closed"},
		{"claim about payment weak", contracts.CheckConfidence, func(in *policy.Input) {
			in.Review.Kept[0].Confidence = 0.5
			in.Review.Best = &in.Review.Kept[0]
		}, "below the threshold"},
		{"claim about payment not deployment-class", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Review.Kept[0].Class = "db_pool_exhaustion"
			in.Review.Best = &in.Review.Kept[0]
		}, "not deployment-class"},
		{"payment's marker after its own onset", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[2].Facts.DeploymentMarkers[0].At = tOnset.Add(time.Minute)
		}, "no deployment.marker span of payment"},
		{"payment's own evidence measured an earlier onset", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[3].Facts.Onset = ptr(tPayMarker.Add(-time.Minute))
		}, "no deployment.marker span of payment"},
		{"no onset of payment", contracts.CheckDeploymentRelated, func(in *policy.Input) { in.Evidence[0].Facts.Origin.Onset = nil }, "no evidence measured the regression's onset for \"payment\""},
		{"payment's marker contradicted by its ledger", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Origin.Ledger.Ledger.Releases[1].DeployedAt = tPayMarker.Add(-24 * time.Hour)
		}, "agrees with the release ledger"},
		{"payment's ledger has no earlier release", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Origin.Ledger.Ledger.Releases = in.Origin.Ledger.Ledger.Releases[1:]
		}, "no earlier release"},
		{"ledger of another service", contracts.CheckDeploymentRelated, func(in *policy.Input) { in.Origin.Ledger.Ledger.Service = svc }, "names service"},
		{"payment's new errors not new with 2.2.0", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[3].Facts.Release = nil
		}, "release"},
		{"payment co-regressed with another", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[3].Facts.CoRegressed = []string{"ledger-db"}
		}, "regressed at the same time"},
		{"payment outside the sandbox", contracts.CheckSandboxScope, func(in *policy.Input) { in.Config.SandboxServices = []string{svc} }, "not a configured sandbox service"},
		{"payment frozen", contracts.CheckFreeze, func(in *policy.Input) {
			in.Origin.Freezes.Freezes = []contracts.FreezeV1{{FreezeID: "f1", Scope: origin, Active: true, By: "alice", At: tNow.Add(-time.Hour), ExpiresAt: tNow.Add(time.Hour), Reason: "audit"}}
		}, "freeze f1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := originating()
			tc.mutate(&in)
			ds := policy.Decide(in)
			require.Len(t, ds, 2)
			require.Equal(t, contracts.VerdictDeny, ds[0].Verdict)
			require.Equal(t, policy.Evaluate(in), ds[0], "the derived decision never changes the alerted one")
			d := ds[1]
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, []string{tc.check}, d.FailedChecks, "%+v", d.Checks)
			require.Contains(t, check(d, tc.check).Reason, tc.reason)
			require.NotEmpty(t, d.NextStep)
		})
	}
}

// With no kept claim about payment there is neither a confidence nor a
// diagnosis about it: both checks that read them fail.
func TestOriginWithoutAClaimAboutItDenies(t *testing.T) {
	t.Parallel()
	in := originating()
	in.Review.Kept = in.Review.Kept[1:]
	in.Review.Best = &in.Review.Kept[0]
	d := policy.Decide(in)[1]
	require.Equal(t, []string{contracts.CheckConfidence, contracts.CheckDeploymentRelated}, d.FailedChecks)
	require.Contains(t, check(d, contracts.CheckConfidence).Reason, "no claim survived")
	require.Empty(t, d.Diagnosis)
}

// The alerted service's onset placed by an attribute shift says nothing of
// the origin's: a bad release of payment is not held to the quality classes.
func TestOriginOnsetCarriesNoOtherFactOfTheAlertedEvidence(t *testing.T) {
	t.Parallel()
	in := originating()
	in.Evidence[0].Facts.OnsetAttribute = "gen_ai.usage.output_tokens"
	d := policy.Decide(in)[1]
	require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.FailedChecks)
}

// State the adapter read for another service than the evidence names is no
// state of the origin: cooldown, the ledger and the freeze all fail closed.
func TestOriginStateOfAnotherServiceFailsClosed(t *testing.T) {
	t.Parallel()
	in := originating()
	in.Origin.Service = "inventory"
	d := policy.Decide(in)[1]
	require.Equal(t, contracts.VerdictDeny, d.Verdict)
	require.Equal(t, []string{contracts.CheckCooldown, contracts.CheckDeploymentRelated, contracts.CheckFreeze}, d.FailedChecks)
	require.Empty(t, d.RollbackTarget)
}

// A claim about the origin never lends the alerted service its confidence
// or diagnosis: shop-api with its own marker and release would allow on a
// claim about itself, not on one about payment.
func TestOriginClaimNeverAllowsTheAlertedService(t *testing.T) {
	t.Parallel()
	in := allowing()
	about := *in.Review.Best
	about.Service = origin
	in.Review.Kept = []contracts.Claim{about}
	in.Review.Best = &about
	d := policy.Evaluate(in)
	require.Equal(t, contracts.VerdictDeny, d.Verdict)
	require.Contains(t, d.FailedChecks, contracts.CheckConfidence)
	require.Empty(t, d.Diagnosis)

	// The same claim naming shop-api itself allows, as before issue 33.
	in = allowing()
	in.Review.Best.Service = svc
	in.Review.Kept[0].Service = svc
	require.Equal(t, contracts.VerdictAllow, policy.Evaluate(in).Verdict)
}

// When the alerted service's own decision allows (its own release explains
// the regression), the origin is not rolled back too.
func TestOriginDeniedWhenTheAlertedServiceIsAllowed(t *testing.T) {
	t.Parallel()
	in := originating()
	base := allowing()
	in.Evidence[0].Facts = base.Evidence[0].Facts
	in.Evidence[0].Facts.Origin = &contracts.FailureOrigin{Service: origin, Signal: "errors", Share: 0.9, Failures: 90, Total: 100, Onset: ptr(tOnset)}
	in.Evidence[1] = base.Evidence[1]
	in.Review.Kept = append(in.Review.Kept, *base.Review.Best)
	ds := policy.Decide(in)
	require.Equal(t, contracts.VerdictAllow, ds[0].Verdict, "%v", ds[0].FailedChecks)
	require.Equal(t, contracts.VerdictDeny, ds[1].Verdict)
	require.Equal(t, []string{contracts.CheckDeploymentRelated}, ds[1].FailedChecks)
	require.Contains(t, ds[1].NextStep, "roll back shop-api")
}

func TestOriginOnlyWhenAnotherServiceIsNamed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(in *policy.Input)
	}{
		{"no origin fact", func(in *policy.Input) { in.Evidence[0].Facts.Origin = nil }},
		{"origin is the alerted service", func(in *policy.Input) { in.Evidence[0].Facts.Origin.Service = svc }},
		{"origin names no service", func(in *policy.Input) { in.Evidence[0].Facts.Origin.Service = "" }},
		{"origin named with a newline", func(in *policy.Input) { in.Evidence[0].Facts.Origin.Service = "payment\r\nNats-Msg-Id: x" }},
		{"origin named with a space", func(in *policy.Input) { in.Evidence[0].Facts.Origin.Service = "pay ment" }},
		{"origin named at length", func(in *policy.Input) { in.Evidence[0].Facts.Origin.Service = strings.Repeat("p", 300) }},
		{"origin fact of another investigation", func(in *policy.Input) { in.Evidence[0].InvestigationID = "inv-other" }},
		{"origin fact on the origin's own evidence", func(in *policy.Input) {
			in.Evidence[3].Facts.Origin, in.Evidence[0].Facts.Origin = in.Evidence[0].Facts.Origin, nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := originating()
			tc.mutate(&in)
			ds := policy.Decide(in)
			require.Len(t, ds, 1)
			require.Equal(t, svc, ds[0].Service)
			require.Equal(t, contracts.VerdictDeny, ds[0].Verdict)
		})
	}
}

// Of two origins, the larger share counts, whatever the evidence's order.
func TestOriginOfTakesTheLargestShare(t *testing.T) {
	t.Parallel()
	in := originating()
	second := in.Evidence[0]
	second.ID = "ev-overview-2"
	second.Facts.Origin = &contracts.FailureOrigin{Service: "inventory", Signal: "latency", Share: 0.2, Failures: 20, Total: 100}
	for _, ev := range [][]contracts.EvidenceV1{
		append([]contracts.EvidenceV1{second}, in.Evidence...),
		append(append([]contracts.EvidenceV1{}, in.Evidence...), second),
	} {
		in.Evidence = ev
		o, from, ok := policy.OriginOf(in)
		require.True(t, ok)
		require.Equal(t, origin, o.Service)
		require.Equal(t, "ev-overview", from)
	}
}

// The alerted service's overview reads the origin only by the minute
// (heldout8's wallet-rs: 12:33:00), so a release seconds into that minute
// (12:33:09) always reads as after it. The origin's own overview refines its
// onset inside the minute from its own spans (12:33:14): that reading stands
// for the bucket's start, as it would had the origin alerted. Outside that
// minute, or when the alerted evidence's onset is no bucket start, the
// earlier of the two stays.
func TestOriginOwnOnsetOnlyInsideTheMinute(t *testing.T) {
	t.Parallel()
	marker := tOnset.Add(9 * time.Second)
	cases := []struct {
		name      string
		origin    time.Time
		own       time.Time
		wantAllow bool
	}{
		{"own onset refined inside the origin's minute, after the marker", tOnset, tOnset.Add(14 * time.Second), true},
		{"own onset in the next minute: the origin's earlier reading stays", tOnset, tOnset.Add(74 * time.Second), false},
		{"own onset inside the minute but before the marker", tOnset, tOnset.Add(5 * time.Second), false},
		{"the alerted evidence's onset is no bucket start", tOnset.Add(3 * time.Second), tOnset.Add(14 * time.Second), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := originating()
			in.Evidence[0].Facts.Origin.Onset = ptr(c.origin)
			in.Evidence[2].Facts.DeploymentMarkers[0].At = marker
			in.Evidence[3].Facts.Release.FirstSeen = marker
			in.Evidence[3].Facts.Onset = ptr(c.own)
			in.Origin.Ledger.Ledger.Releases[1].DeployedAt = marker
			d := policy.Decide(in)[1]
			if c.wantAllow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%+v", d.Checks)
				require.Equal(t, "ev-pay-overview", check(d, contracts.CheckDeploymentRelated).Inputs["onset_evidence"])
				return
			}
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
		})
	}
}
