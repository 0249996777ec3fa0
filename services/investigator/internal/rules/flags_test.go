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

// TestGeneralFeaturesOfIssue35 covers the facts the rules read since issue
// 35's mesh corpus and fresh seed: a flag flipped at run time (here or where
// the failures begin), a marker the service's own versions contradict, a
// peer the release began calling, a slow dependency. Each case has a twin
// that differs in the one fact and must not be diagnosed the same.
func TestGeneralFeaturesOfIssue35(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	flag := func(at time.Time) []contracts.QualityShift {
		return []contracts.QualityShift{{Attribute: "feature_flag.result.variant", Value: "on", At: at, Before: 0.01, Since: 1, Statistic: 600}}
	}
	overview := func(id, svc string, f contracts.Facts) loop.Evidence {
		f.Onset, f.ErrorRate, f.P95Ms = &onset, f64(0.15), f64(200)
		e := ev(id, contracts.ToolServiceOverview, f, "")
		e.Service = svc
		return e
	}
	marker := func(at time.Time, version string) loop.Evidence {
		e := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: version, At: at}}}, "")
		e.Service = "shop-api"
		return e
	}
	noMarker := marker(onset.Add(-3*time.Hour), "v0")
	origin := &contracts.FailureOrigin{Service: "payment", Signal: "errors", Share: 0.9, Failures: 9, Total: 10}
	running := func(history int, first time.Time) *contracts.ReleaseErrors {
		return &contracts.ReleaseErrors{Version: "v2", FirstSeen: first, HistoryMinutes: history, Requests: 200, Errors: 40}
	}
	failingCall := errorTraces(`{"trace_id":"t1","span_id":"a","parent_span_id":"","service":"shop-api","name":"GET /x","kind":"Server","error":true}`,
		`{"trace_id":"t1","span_id":"b","parent_span_id":"a","service":"shop-api","name":"GET","kind":"Client","error":true,"server.address":"staging.example"}`)
	tests := []struct {
		name     string
		evidence []loop.Evidence
		class    string
	}{
		{"a flag flipped at the onset, no release", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{QualityShifts: flag(onset)}), noMarker}, "config_regression"},
		{"a flag that shifted long before the onset explains nothing", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{QualityShifts: flag(onset.Add(-20 * time.Minute))}), noMarker}, contracts.ClassUnknown},
		{"a flag flipped where the failures begin", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{Origin: origin}), overview("ov2", "payment", contracts.Facts{QualityShifts: flag(onset.Add(30 * time.Second))}), noMarker}, "config_regression"},
		{"an answer attribute is no flag", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{QualityShifts: []contracts.QualityShift{{Attribute: "gen_ai.response.model", Value: "x", At: onset}}}), noMarker}, contracts.ClassUnknown},
		{"a marker of the version that served from the first minute is no release", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{Release: running(0, onset.Add(-2*time.Hour))}), marker(onset.Add(-5*time.Minute), "v2")}, contracts.ClassUnknown},
		{"a version first seen after another served may precede its marker", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{Release: running(40, onset.Add(-15*time.Minute))}), marker(onset.Add(-5*time.Minute), "v2")}, "bad_release"},
		{"a marker naming another version is not contradicted", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{Release: running(0, onset.Add(-2*time.Hour))}), marker(onset.Add(-5*time.Minute), "flags-7")}, "bad_release"},
		{"a release begins calling a new peer", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{PeakCallRatio: f64(40), PeakCallPeer: "staging.example"}), marker(onset.Add(-5*time.Minute), "v2"), failingCall}, "config_regression"},
		{"a few times the calls to a peer is no new peer", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{PeakCallRatio: f64(3), PeakCallPeer: "staging.example"}), marker(onset.Add(-5*time.Minute), "v2"), failingCall}, "dependency_outage"},
		{"a slow dependency at its usual rate", []loop.Evidence{overview("ov", "shop-api", contracts.Facts{SlowDependencies: []string{"vector-db"}}), noMarker}, "retrieval_latency"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			claims := rules.Diagnose(rules.Observe("shop-api", tc.evidence))
			require.NotEmpty(t, claims)
			require.Equal(t, tc.class, claims[0].Class, "%+v", claims)
		})
	}
}

// TestSlowFirstAndUnmarkedPrompt covers the facts the rules read since seed
// 61843 (issue 35, branch h41rules): a dependency call whose latency left its
// baseline before anything else did is retrieval latency even when a few of
// its timeouts read as a high error rate after a release; the model's answers
// shifting with no marker in the window is a prompt regression; a version
// released during the recording that fails with a status its history never
// showed is a bad release even when its marker is out of the window; resends
// to a dependency the service calls at its usual rate are no retry storm. Each case has
// a twin that differs in the one fact and must not be diagnosed the same.
func TestSlowFirstAndUnmarkedPrompt(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	overview := func(rate float64, f contracts.Facts) loop.Evidence {
		f.Onset, f.ErrorRate, f.P95Ms = &onset, f64(rate), f64(1400)
		return ev("ov", contracts.ToolServiceOverview, f, "")
	}
	departs := func(op, signal string, before, since float64) []contracts.OperationDeparture {
		return []contracts.OperationDeparture{{Operation: op, Signal: signal, At: onset.Add(-8 * time.Minute), Before: before, Since: since, P: 1e-9},
			{Operation: "GET /v1/suggest Server", Signal: "error_rate", At: onset, Before: 0.001, Since: 0.2, P: 1e-6}}
	}
	release := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v2", At: onset.Add(-20 * time.Minute)}}}, "")
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	models := ev("models", contracts.ToolAggregateTraces, contracts.Facts{}, "tool: aggregate_traces\n<<<DATA rows=1\n"+`{"name":"chat gpt-4o-mini","gen_ai.request.model":"gpt-4o-mini","p95_ms":900}`+"\nDATA>>>")
	models.Arguments = []byte(`{"service":"shop-api","aggregation":"p95","group_by":["name","gen_ai.request.model"]}`)
	exception := errorTraces(`{"trace_id":"t1","span_id":"a","service":"shop-api","name":"GET /x","kind":"Server","error":true,"exception.type":"KeyError"}`)
	latent := func(history int, newErrors, errors, otherNew int64) *contracts.ReleaseErrors {
		return &contracts.ReleaseErrors{Version: "v2", FirstSeen: onset.Add(-3 * time.Hour), HistoryMinutes: history, Requests: 40, Errors: errors,
			NewSignature: "Object reference not set to an instance of an object.", NewErrors: newErrors, OtherRequests: 10, OtherNewErrors: otherNew}
	}
	resends := errorTraces(`{"trace_id":"t1","span_id":"a","service":"shop-api","name":"POST /checkout","kind":"Server","error":true}`,
		`{"trace_id":"t1","span_id":"b","parent_span_id":"a","service":"shop-api","name":"POST","kind":"Client","error":true,"server.address":"api.mail.example","http.request.resend_count":1}`,
		`{"trace_id":"t1","span_id":"c","parent_span_id":"a","service":"shop-api","name":"POST","kind":"Client","error":true,"server.address":"api.mail.example","http.request.resend_count":2}`)
	peerFails := errorTraces(`{"trace_id":"t2","span_id":"a","service":"shop-api","name":"POST /ask","kind":"Server","error":true}`,
		`{"trace_id":"t2","span_id":"b","parent_span_id":"a","service":"shop-api","name":"POST","kind":"Client","error":true,"server.address":"vector-index"}`)
	slowAt := func(lead time.Duration) []contracts.OperationDeparture {
		return []contracts.OperationDeparture{{Operation: "POST Client", Signal: "p95", At: onset.Add(-lead), Before: 68, Since: 691, P: 1e-9}}
	}
	answers := []contracts.QualityShift{{Attribute: "gen_ai.response.finish_reasons", Value: `["length"]`, At: onset, Before: 0, Since: 0.47, Statistic: 77}}
	tests := []struct {
		name     string
		evidence []loop.Evidence
		class    string
	}{
		{"a dependency slowed first, then a few timeouts after a release", []loop.Evidence{overview(0.15, contracts.Facts{Departures: departs("POST Client", "p95", 53, 263)}), release}, "retrieval_latency"},
		{"the service's own errors left first after a release", []loop.Evidence{overview(0.15, contracts.Facts{Departures: departs("GET /x Server", "error_rate", 0.001, 0.3)}), release}, "bad_release"},
		{"a dependency call slower by less than SlowRatio is not first", []loop.Evidence{overview(0.15, contracts.Facts{Departures: departs("POST Client", "p95", 200, 263)}), release}, "bad_release"},
		{"the model call slowed first: not a dependency", []loop.Evidence{overview(0.15, contracts.Facts{Departures: departs("chat gpt-4o-mini Client", "p95", 400, 1300)}), release, models}, "bad_release"},
		{"a dependency slowed first, but the failing spans throw", []loop.Evidence{overview(0.15, contracts.Facts{Departures: departs("POST Client", "p95", 53, 263)}), release, exception}, "bad_release"},
		{"answers shifted with no marker in the window, after a release in the recording", []loop.Evidence{overview(0.01, contracts.Facts{QualityShifts: answers, Release: latent(15, 0, 1, 0)}), noMarker}, "prompt_regression"},
		{"answers shifted with no release anywhere: the traffic's", []loop.Evidence{overview(0.01, contracts.Facts{QualityShifts: answers, Release: latent(0, 0, 1, 0)}), noMarker}, contracts.ClassUnknown},
		{"answers shifted, no marker, but the service fails", []loop.Evidence{overview(0.2, contracts.Facts{QualityShifts: answers, Release: latent(15, 0, 1, 0)}), noMarker}, contracts.ClassUnknown},
		{"no answer shift and no marker", []loop.Evidence{overview(0.01, contracts.Facts{}), noMarker}, contracts.ClassUnknown},
		{"the version released during the recording fails with a new status, marker out of the window", []loop.Evidence{overview(0.06, contracts.Facts{Release: latent(120, 23, 23, 0)}), noMarker}, "bad_release"},
		{"the version served from the first minute: nothing was released", []loop.Evidence{overview(0.06, contracts.Facts{Release: latent(0, 23, 23, 0)}), noMarker}, contracts.ClassUnknown},
		{"two errors with a new status are noise", []loop.Evidence{overview(0.06, contracts.Facts{Release: latent(120, 2, 2, 0)}), noMarker}, contracts.ClassUnknown},
		{"the new status is a minority of the version's errors", []loop.Evidence{overview(0.06, contracts.Facts{Release: latent(120, 3, 20, 0)}), noMarker}, contracts.ClassUnknown},
		{"the old version fails with the same status", []loop.Evidence{overview(0.06, contracts.Facts{Release: latent(120, 23, 23, 4)}), noMarker}, contracts.ClassUnknown},
		{"resends to a dependency called at its usual rate after a release", []loop.Evidence{overview(0.15, contracts.Facts{FailingDependencies: []string{"api.mail.example"}}), release, resends}, "dependency_outage"},
		{"resends to a peer the service now calls beyond its usual rate", []loop.Evidence{overview(0.15, contracts.Facts{}), release, resends}, "retry_storm"},
		{"a failing dependency the failing spans do not call", []loop.Evidence{overview(0.15, contracts.Facts{FailingDependencies: []string{"other.example"}}), release, resends}, "retry_storm"},
		{"retries counted only in log lines are not in the call rate", []loop.Evidence{overview(0.15, contracts.Facts{FailingDependencies: []string{"api.mail.example"},
			Retries: &contracts.RetryRise{Source: "logs", Since: 3, Baseline: 0.1, Ratio: 30, Events: 90}}), release, resends}, "retry_storm"},
		{"resends counted on their own client spans are in the call rate", []loop.Evidence{overview(0.15, contracts.Facts{FailingDependencies: []string{"api.mail.example"},
			Retries: &contracts.RetryRise{Source: "attribute", Key: "http.request.resend_count", Since: 0.3, Baseline: 0, Ratio: 300, Events: 7}}), release, resends}, "dependency_outage"},
		{"no marker: a dependency slowed 6 min before its calls failed", []loop.Evidence{overview(0.15, contracts.Facts{Departures: slowAt(6 * time.Minute)}), noMarker, peerFails}, "retrieval_latency"},
		{"no marker: the dependency slowed in the minute its calls failed", []loop.Evidence{overview(0.15, contracts.Facts{Departures: slowAt(0)}), noMarker, peerFails}, "dependency_outage"},
		{"no marker: resends multiplied the calls to the failing peer since a release in the recording", []loop.Evidence{overview(0.15, contracts.Facts{
			PeakCallRatio: f64(6), PeakCallPeer: "api.mail.example", TrafficRatio: f64(1.26), Release: latent(412, 1, 1, 0)}), noMarker, resends}, "retry_storm"},
		{"no marker: the same resends, no release in the recording", []loop.Evidence{overview(0.15, contracts.Facts{
			PeakCallRatio: f64(6), PeakCallPeer: "api.mail.example", TrafficRatio: f64(1.26), Release: latent(0, 1, 1, 0)}), noMarker, resends}, "dependency_outage"},
		{"no marker: resends, the failing peer called at its usual rate a request", []loop.Evidence{overview(0.15, contracts.Facts{
			PeakCallRatio: f64(2.4), PeakCallPeer: "api.mail.example", TrafficRatio: f64(1.3), Release: latent(412, 1, 1, 0)}), noMarker, resends}, "dependency_outage"},
		{"no marker: slowed first, but the failing spans throw", []loop.Evidence{overview(0.15, contracts.Facts{Departures: slowAt(6 * time.Minute)}), noMarker, peerFails, exception}, "dependency_outage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			claims := rules.Diagnose(rules.Observe("shop-api", tc.evidence))
			require.NotEmpty(t, claims)
			require.Equal(t, tc.class, claims[0].Class, "%+v", claims)
		})
	}
}
