package policy_test

import (
	"time"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// The fixture: shop-api's v2 started serving at 10:02, the regression began
// at 10:05 (onset, from telemetry), the alert fired at 10:10, the gate decides
// at 10:20. Every check passes.
var (
	tMarker = time.Date(2026, 11, 30, 10, 2, 0, 0, time.UTC)
	tOnset  = time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)
	tStarts = time.Date(2026, 11, 30, 10, 10, 0, 0, time.UTC)
	tNow    = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
)

const (
	svc   = "shop-api"
	invID = "inv-1"
)

func ptr[T any](v T) *T { return &v }

func allowing() policy.Input {
	cfg := policy.DefaultConfig()
	cfg.SandboxServices = []string{svc}
	best := contracts.Claim{ID: "c1", Class: "retry_storm", Statement: "retries exploded", Confidence: 0.82, EvidenceIDs: []string{"ev-overview", "ev-markers"}}
	return policy.Input{
		Now:    tNow,
		Action: policy.ActionRollback,
		Review: contracts.ReviewV1{
			ReviewID: "review.inv-1", InvestigationID: invID, IncidentID: "inc-1", Service: svc,
			Kept:                   []contracts.Claim{best, {ID: "c2", Class: "retry_storm", Confidence: 0.5, EvidenceIDs: []string{"ev-overview"}}},
			Best:                   &best,
			InvestigationCompleted: true,
		},
		Alert: &contracts.AlertV1{
			IncidentID: "inc-1", Status: contracts.AlertFiring, Service: svc, RuleID: "r1",
			StartsAt: tStarts, BurnRate: 14.4, BurnRateSource: "labels.burn_rate",
			Labels: map[string]string{"service.name": svc, "burn_rate": "14.4"},
		},
		Evidence: []contracts.EvidenceV1{
			{
				ID: "ev-overview", InvestigationID: invID, Service: svc, Tool: contracts.ToolServiceOverview,
				From: tStarts.Add(-2 * time.Hour), To: tNow,
				Facts: contracts.Facts{Onset: ptr(tOnset), ErrorRate: ptr(0.31), Release: goodRelease(), PeakCallRatio: ptr(4.5), PeakCallPeer: "payments-api",
					Departures: []contracts.OperationDeparture{{Operation: "POST /checkout Server", Signal: "error_rate", At: tOnset, Before: 0.01, Since: 0.31, P: 1e-12}}},
			},
			{
				ID: "ev-markers", InvestigationID: invID, Service: svc, Tool: contracts.ToolDeploymentMarkers,
				From: tStarts.Add(-2 * time.Hour), To: tNow,
				Facts: contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{
					{Service: svc, Version: "v2", PreviousVersion: "v1", At: tMarker},
				}},
			},
		},
		Cooldown: policy.CooldownState{Found: false},
		Ledger: policy.LedgerState{Found: true, Ledger: contracts.ReleaseLedgerV1{
			Project: "shop", Service: svc,
			Releases: []contracts.Release{
				{Version: "v1", Image: "agentk-demo/shop-api:v1", DeployedAt: tMarker.Add(-2 * time.Hour)},
				{Version: "v2", Image: "agentk-demo/shop-api:v2", DeployedAt: tMarker},
			},
		}},
		Config: cfg,
	}
}

// started sets the time the ledger saw its running release start.
func started(in *policy.Input, at time.Time) {
	rs := in.Ledger.Ledger.Releases
	rs[len(rs)-1].DeployedAt = at
}

// markers replaces the marker query's markers.
func markers(in *policy.Input, ms ...contracts.DeploymentMarker) {
	in.Evidence[1].Facts.DeploymentMarkers = ms
}

// goodRelease is the release comparison of a bad release: v2, first serving
// at the marker, fails since the onset with a status its history never showed.
func goodRelease() *contracts.ReleaseErrors {
	return &contracts.ReleaseErrors{Version: "v2", FirstSeen: tMarker, HistoryMinutes: 120, HistoryErrors: 4,
		Requests: 300, Errors: 95, NewSignature: "runtime error: index out of range [#]", NewErrors: 90,
		// The previous version stopped serving at the deploy.
		OtherVersions: &contracts.OtherVersionErrors{HistoryRequests: 3600, HistoryErrors: 4}}
}
