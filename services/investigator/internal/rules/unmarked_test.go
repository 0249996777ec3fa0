package rules_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"
)

// TestWhatNoMarkerOrNoOnsetLeaves covers three facts read on seeds 84217
// and 4729163 (branch h42rules), each red without its row, each with twins
// that differ in the one fact: a released version whose calls go to a host
// never called before, its marker out of the window (config_regression,
// was dependency_outage); a service refusing requests as too many (HTTP
// 429) when no onset gave a traffic ratio (traffic_surge, was
// resource_saturation or unknown); the model's answers shifting after a
// release when latency and errors never left their baseline
// (prompt_regression, was unknown).
func TestWhatNoMarkerOrNoOnsetLeaves(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	markerAt := func(at time.Time) loop.Evidence {
		return ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v5", At: at}}}, "")
	}
	// s84217-w042's shape: v34 released 3 h before the onset, its calls to
	// a staging host fail since the onset with a status never seen before.
	released := func(history int) loop.Evidence {
		return ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.064), P95Ms: f64(222), Onset: &onset, TrafficRatio: f64(0.88),
			Release: &contracts.ReleaseErrors{Version: "v34", FirstSeen: onset.Add(-3 * time.Hour), HistoryMinutes: history, Requests: 45, Errors: 30,
				NewSignature: "dial tcp: lookup staging-maps.partner-geo.example: no such host", NewErrors: 30}}, "")
	}
	peers := func(id string, at string, rows ...string) loop.Evidence {
		a := contracts.ToolArgs{Aggregation: "count", GroupBy: []string{"net.peer.name"}, Filter: "kind_string = 'Client'"}
		if at == "before" {
			a.To = &onset
		} else {
			a.From = &onset
		}
		return agg(id, a, rows...)
	}
	callsTo := func(host string) loop.Evidence {
		return errorTraces(
			`{"service":"shop-api","trace_id":"t1","span_id":"c1","parent_span_id":"s1","kind":"Client","error":true,"net.peer.name":"`+host+`","peer.service":"geo-provider","status_message":"dial tcp: lookup `+host+`: no such host"}`,
			`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.status_code":502}`)
	}
	before := peers("pb", "before", `{"count":440,"net.peer.name":"maps.partner-geo.example"}`)
	afterNew := peers("pa", "after", `{"count":50,"net.peer.name":"maps.partner-geo.example"}`, `{"count":30,"net.peer.name":"staging-maps.partner-geo.example"}`)
	afterOld := peers("pa", "after", `{"count":50,"net.peer.name":"maps.partner-geo.example"}`)
	// s84217-w021's shape: 28 min of telemetry, no onset (so no traffic
	// ratio), failing server spans answering 429 and 503.
	noOnset := func(rate float64, f contracts.Facts) loop.Evidence {
		f.ErrorRate, f.P95Ms, f.OnsetUnknown = f64(rate), f64(300), "no sustained departure from the baseline"
		return ev("ov", contracts.ToolServiceOverview, f, "")
	}
	refusing := func(n429 int) loop.Evidence {
		var rows []string
		for i := range 6 {
			code := 503
			if i < n429 {
				code = 429
			}
			rows = append(rows, fmt.Sprintf(`{"service":"shop-api","trace_id":"t%d","span_id":"s%d","kind":"Server","error":true,"http.status_code":%d,"status_message":"too many concurrent requests"}`, i, i, code))
		}
		return errorTraces(rows...)
	}
	passedOn := errorTraces(func() []string {
		var rows []string
		for i := range 4 {
			rows = append(rows, fmt.Sprintf(`{"service":"shop-api","trace_id":"t%d","span_id":"c%d","parent_span_id":"s%d","kind":"Client","error":true,"server.address":"api.geo.example","http.status_code":429}`, i, i, i),
				fmt.Sprintf(`{"service":"shop-api","trace_id":"t%d","span_id":"s%d","kind":"Server","error":true,"http.status_code":429}`, i, i))
		}
		return rows
	}()...)
	memory := ev("lg", contracts.ToolErrorLogs, contracts.Facts{}, `"GC pause 1.8s (heap 1010 MiB of 1024 MiB)"`)
	// s84217-w054's shape: no onset, completion tokens and failed
	// evaluations shifted 13 min after the release.
	shifted := looptest.Base.Add(-9 * time.Minute)
	answers := []contracts.QualityShift{{Attribute: "gen_ai.usage.completion_tokens", At: shifted, Before: 273, Since: 975, Statistic: 100},
		{Attribute: "eval.passed", Value: "false", At: shifted, Before: 0, Since: 0.87, Statistic: 107}}
	tests := []featureCase{
		{"no marker: the released version's calls to a host never called before fail", []loop.Evidence{released(11), noMarker, callsTo("staging-maps.partner-geo.example"), before, afterNew},
			"config_regression", rules.FeatNewHost},
		{"no marker: the released version's calls to the host called all along fail", []loop.Evidence{released(11), noMarker, callsTo("maps.partner-geo.example"), before, afterOld},
			"dependency_outage", rules.FeatPeer},
		{"no marker: calls to a new host fail, no release in the recording", []loop.Evidence{released(0), noMarker, callsTo("staging-maps.partner-geo.example"), before, afterNew},
			"dependency_outage", rules.FeatPeer},
		{"no onset: the service's own server spans answer 429", []loop.Evidence{noOnset(0.05, contracts.Facts{}), noMarker, refusing(3)},
			"traffic_surge", rules.FeatThrottled},
		{"no onset: two 429s are a client over its quota", []loop.Evidence{noOnset(0.05, contracts.Facts{}), noMarker, refusing(2)},
			contracts.ClassUnknown, ""},
		{"no onset: 429s passed on from a callee", []loop.Evidence{noOnset(0.05, contracts.Facts{}), noMarker, passedOn},
			"dependency_outage", rules.FeatPeer},
		{"no onset: 429s, and the process short of memory", []loop.Evidence{noOnset(0.05, contracts.Facts{}), noMarker, refusing(6), memory},
			"resource_saturation", ""},
		{"an onset, traffic at its baseline: 429s are no surge", []loop.Evidence{ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.05), P95Ms: f64(300), Onset: &onset, TrafficRatio: f64(1.0)}, ""), noMarker, refusing(6)},
			contracts.ClassUnknown, ""},
		{"no onset: answers shifted minutes after a release", []loop.Evidence{noOnset(0.009, contracts.Facts{QualityShifts: answers}), markerAt(shifted.Add(-13 * time.Minute))},
			"prompt_regression", rules.FeatReleasedAnswers},
		{"no onset: answers shifted before the release", []loop.Evidence{noOnset(0.009, contracts.Facts{QualityShifts: answers}), markerAt(shifted.Add(5 * time.Minute))},
			contracts.ClassUnknown, ""},
		{"no onset: answers shifted long after the release", []loop.Evidence{noOnset(0.009, contracts.Facts{QualityShifts: answers}), markerAt(shifted.Add(-rules.MarkerWindow - time.Minute))},
			contracts.ClassUnknown, ""},
		{"no onset: answers shifted after a release, but the service fails", []loop.Evidence{noOnset(0.2, contracts.Facts{QualityShifts: answers}), markerAt(shifted.Add(-13 * time.Minute))},
			contracts.ClassUnknown, ""},
		{"an onset the marker is too old for: the answers' shift is not measured against it", []loop.Evidence{ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.009), P95Ms: f64(300), Onset: &onset, QualityShifts: answers}, ""),
			markerAt(onset.Add(-rules.MarkerWindow - time.Minute))},
			contracts.ClassUnknown, ""},
	}
	runFeatureCases(t, tests, "")
	for _, tc := range tests {
		if tc.feature == rules.FeatReleasedAnswers {
			claims := rules.Diagnose(rules.Observe("shop-api", tc.evidence))
			if !strings.Contains(strings.Join(claims[0].EvidenceIDs, ","), "mk") {
				t.Errorf("%s: the claim cites no marker: %v", tc.name, claims[0].EvidenceIDs)
			}
		}
	}
}
