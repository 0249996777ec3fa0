package rules_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"

	"github.com/stretchr/testify/require"
)

// TestOriginClaimNamesTheCallee: when the alerted service's overview names
// a callee as the origin of its failures and the callee's own marker query
// shows a release of it before its own onset, the rules' first claim is a
// deployment-class claim with Service set to the callee, citing the callee's
// overview and markers; with no release of the callee, or no origin, the
// claims are the alerted service's alone.
func TestOriginClaimNamesTheCallee(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	at := func(e loop.Evidence, svc string) loop.Evidence { e.Service = svc; return e }
	alerted := func(o *contracts.FailureOrigin) loop.Evidence {
		return at(ev("ov-api", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.4), Onset: &onset, Origin: o}, ""), "api")
	}
	origin := &contracts.FailureOrigin{Service: "ledger", Signal: "errors", Share: 0.9, Failures: 27, Total: 30, Onset: &onset, Path: []string{"api", "ledger"}}
	ledgerOv := at(ev("ov-ledger", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.5), Onset: &onset}, ""), "ledger")
	markers := func(id, svc string, m ...contracts.DeploymentMarker) loop.Evidence {
		return at(ev(id, contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: m}, ""), svc)
	}
	release := contracts.DeploymentMarker{Service: "ledger", Version: "v2", At: onset.Add(-4 * time.Minute)}
	clientOrigin := *origin
	clientOrigin.Operation = "connect Client"
	tests := []struct {
		name     string
		evidence []loop.Evidence
		service  string // the first claim's Service
		class    string
		cites    []string
	}{
		{"a release of the origin before its onset", []loop.Evidence{alerted(origin), markers("mk-api", "api"), markers("mk-ledger", "ledger", release), ledgerOv},
			"ledger", "bad_release", []string{"ov-ledger", "mk-ledger", "ov-api"}},
		{"a release of the origin whose own calls out fail", []loop.Evidence{alerted(&clientOrigin), markers("mk-api", "api"), markers("mk-ledger", "ledger", release), ledgerOv},
			"ledger", "config_regression", []string{"ov-ledger", "mk-ledger", "ov-api"}},
		{"no release of the origin", []loop.Evidence{alerted(origin), markers("mk-api", "api"), markers("mk-ledger", "ledger"), ledgerOv},
			"", contracts.ClassUnknown, []string{"ov-api", "mk-api"}},
		{"a release of the origin long before its onset", []loop.Evidence{alerted(origin), markers("mk-api", "api"),
			markers("mk-ledger", "ledger", contracts.DeploymentMarker{Service: "ledger", Version: "v2", At: onset.Add(-2 * time.Hour)}), ledgerOv},
			"", contracts.ClassUnknown, []string{"ov-api", "mk-api"}},
		{"no origin: the alerted service's claims", []loop.Evidence{alerted(nil), markers("mk-api", "api"), markers("mk-ledger", "ledger", release), ledgerOv},
			"", contracts.ClassUnknown, []string{"ov-api", "mk-api"}},
		{"a marker of the origin found by the alerted service's query does not count", []loop.Evidence{alerted(origin), markers("mk-api", "api", release), ledgerOv},
			"", contracts.ClassUnknown, []string{"ov-api", "mk-api"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			claims := rules.WithOrigin("api", tt.evidence, rules.Diagnose(rules.Observe("api", tt.evidence)))
			require.NotEmpty(t, claims)
			require.Equal(t, tt.service, claims[0].Service)
			require.Equal(t, tt.class, claims[0].Class)
			require.ElementsMatch(t, tt.cites, claims[0].EvidenceIDs)
			for _, c := range claims[1:] {
				require.Empty(t, c.Service)
				require.Less(t, c.Confidence, claims[0].Confidence)
			}
		})
	}
}

// TestAbandonedCallsAreTheServicesOwnFailures: failing client spans to a
// callee the overview found downstream (Facts.Downstream: the release
// abandons its calls to it) are the service's own failures, not a failing
// dependency; the same rows without that fact read as a failing dependency.
func TestAbandonedCallsAreTheServicesOwnFailures(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	overview := func(downstream ...string) loop.Evidence {
		return ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.3), P95Ms: f64(200), Onset: &onset, Downstream: downstream}, "")
	}
	marker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "2.14.0", At: onset.Add(-4 * time.Minute)}}}, "")
	rows := []string{
		`{"service":"shop-api","trace_id":"t1","span_id":"c1","parent_span_id":"s1","kind":"Client","error":true,"peer.service":"fraud-score","status_message":"context canceled"}`,
		`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.status_code":500,"status_message":"x"}`,
		`{"service":"shop-api","trace_id":"t2","span_id":"c2","parent_span_id":"s2","kind":"Client","error":true,"peer.service":"fraud-score","status_message":"context canceled"}`,
		`{"service":"shop-api","trace_id":"t2","span_id":"s2","kind":"Server","error":true,"http.status_code":500,"status_message":"x"}`,
	}
	runFeatureCases(t, []featureCase{
		{"calls to a downstream callee the release abandons", []loop.Evidence{overview("fraud-score"), marker, errorTraces(rows...)}, "bad_release", ""},
		{"the same calls, no downstream fact: a failing dependency", []loop.Evidence{overview(), marker, errorTraces(rows...)}, "dependency_outage", rules.FeatPeer},
	}, "")
}
