package rules_test

import (
	"fmt"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"
)

// TestWhatAFailingCalleeSaysOfItsCaller covers the facts read on the
// hand-written held-out corpora (issue 35 item 8), each red without its
// change, each with a twin that differs in the one fact: calls to a failing
// peer rising beyond what retrying its failures explains (the caller's own
// load: bad_release, was dependency_outage) or within it (the peer's
// outage: dependency_outage, was retry_storm); errors only the new version
// shows while the old one served beside it (bad_release, was
// dependency_outage); a flag flipped at the onset of a configuration
// release (config_regression, was prompt_regression); a latent release
// whose new error names a setting (config_regression, was bad_release); a
// model provider's failure inside an SDK's internal span (dependency_outage,
// was retry_storm); the service's own name matching a signal's pattern.
func TestWhatAFailingCalleeSaysOfItsCaller(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	marker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v5", At: onset.Add(-2 * time.Minute)}}}, "")
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	overview := func(f contracts.Facts) loop.Evidence {
		f.ErrorRate, f.P95Ms, f.Onset, f.TrafficRatio = f64(0.2), f64(400), &onset, f64(1.0)
		return ev("ov", contracts.ToolServiceOverview, f, "")
	}
	// A peer answering 503 to the service's calls, one client span per
	// attempt, attempts of them in each trace.
	peer := func(attempts int) loop.Evidence {
		var rows []string
		for i := range 4 {
			for a := range attempts {
				rows = append(rows, fmt.Sprintf(`{"service":"shop-api","trace_id":"t%d","span_id":"c%d%d","parent_span_id":"s%d","kind":"Client","error":true,"server.address":"rates.internal","http.response.status_code":503}`, i, i, a, i))
			}
			rows = append(rows, fmt.Sprintf(`{"service":"shop-api","trace_id":"t%d","span_id":"s%d","kind":"Server","error":true,"http.response.status_code":502,"status_message":"rate lookup failed"}`, i, i))
		}
		return errorTraces(rows...)
	}
	peer503, resent := peer(1), peer(2)
	retried := func(calls, p float64) contracts.Facts {
		return contracts.Facts{RetriedFaults: []contracts.RetriedFault{{Peer: "rates.internal", CallRatio: calls, FailureRate: p}},
			PeakCallRatio: f64(calls), PeakCallPeer: "rates.internal"}
	}
	// The peer's client span's p95 left its baseline before anything else.
	slowedFirst := func(f contracts.Facts) contracts.Facts {
		f.Departures = []contracts.OperationDeparture{{Operation: "GET Client", Signal: "p95", At: onset, Before: 35, Since: 500}}
		return f
	}
	release := func(other, otherNew int64) contracts.Facts {
		return contracts.Facts{Release: &contracts.ReleaseErrors{Version: "v5", FirstSeen: onset, HistoryMinutes: 90, Requests: 300, Errors: 100,
			NewSignature: "pricing rejected the cart", NewErrors: 100, OtherRequests: other, OtherNewErrors: otherNew}}
	}
	// The outage began under the old version: errors before the new one served.
	hotfix := func() contracts.Facts {
		f := release(40, 0)
		f.Release.HistoryErrors = 52
		return f
	}
	latent := func(sig string) contracts.Facts {
		return contracts.Facts{Release: &contracts.ReleaseErrors{Version: "cfg-41", FirstSeen: onset.Add(20 * time.Minute), HistoryMinutes: 140, Requests: 400, Errors: 30,
			NewSignature: sig, NewErrors: 27, OtherRequests: 0}}
	}
	ownFault := errorTraces(`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":500,"status_message":"x"}`,
		`{"service":"shop-api","trace_id":"t2","span_id":"s2","kind":"Server","error":true,"http.response.status_code":500,"status_message":"x"}`,
		`{"service":"shop-api","trace_id":"t3","span_id":"s3","kind":"Server","error":true,"http.response.status_code":500,"status_message":"x"}`)
	flag := []contracts.QualityShift{{Attribute: "feature_flag.retrieval_mode", Value: "hybrid", At: onset.Add(-time.Minute), Before: 0, Since: 1, Statistic: 50},
		{Attribute: "gen_ai.usage.output_tokens", At: onset, Before: 300, Since: 700, Statistic: 40}}
	answersOnly := flag[1:]
	quiet := func(f contracts.Facts) loop.Evidence {
		f.ErrorRate, f.P95Ms, f.Onset, f.TrafficRatio = f64(0), f64(900), &onset, f64(1.0)
		return ev("ov", contracts.ToolServiceOverview, f, "")
	}
	// A model SDK's call, recorded as an internal span, failing with the
	// provider's overload status beneath the service's 502.
	model := func(kind string) loop.Evidence {
		var rows []string
		for i := range 4 {
			rows = append(rows, fmt.Sprintf(`{"service":"shop-api","trace_id":"t%d","span_id":"m%d","parent_span_id":"s%d","kind":"%s","error":true,"gen_ai.system":"anthropic","status_message":"OverloadedError: 529"}`, i, i, i, kind),
				fmt.Sprintf(`{"service":"shop-api","trace_id":"t%d","span_id":"s%d","kind":"Server","error":true,"http.status_code":502,"status_message":"Bad Gateway"}`, i, i))
		}
		return errorTraces(rows...)
	}
	retryLogs := ev("lg", contracts.ToolErrorLogs, contracts.Facts{}, `"POST https://api.anthropic.com/v1/messages failed with status 529 - retrying, 3 attempts remaining"`)
	modelOverview := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.2), P95Ms: f64(9000), Onset: &onset, TrafficRatio: f64(0.94),
		Retries: &contracts.RetryRise{Source: "attribute", Key: "llm.client.retry_count", Since: 0.5, Baseline: 0.005, Ratio: 94}}, "")
	named := func(service string) loop.Evidence {
		return ev("tr", contracts.ToolErrorTraces, contracts.Facts{}, "tool: error_traces\nservice: "+service+"\n<<<DATA rows=n\nDATA>>>")
	}
	tests := []featureCase{
		{"after a release, calls to the failing peer rose beyond what retrying its failures explains", []loop.Evidence{overview(retried(4.5, 0.37)), marker, peer503},
			"bad_release", rules.FeatOwnLoad},
		{"after a release, calls to the failing peer rose beyond what retrying explains, and slowed first", []loop.Evidence{overview(slowedFirst(retried(4.5, 0.37))), marker, peer503},
			"bad_release", rules.FeatOwnLoad},
		{"after a release, calls to the failing peer rose as retrying its failures explains", []loop.Evidence{overview(retried(2.3, 0.77)), marker, resent},
			"dependency_outage", rules.FeatPeer},
		{"after a release, only the new version fails, the old one served beside it", []loop.Evidence{overview(release(40, 0)), marker, peer503},
			"bad_release", rules.FeatVersionOnly},
		{"after a release, the old version served beside it and failed too", []loop.Evidence{overview(release(40, 12)), marker, peer503},
			"dependency_outage", rules.FeatPeer},
		{"no marker: only the released version shows its error, but the service failed before it served", []loop.Evidence{overview(hotfix()), noMarker, peer503},
			"dependency_outage", rules.FeatPeer},
		{"after a release, too few requests of the old version to tell", []loop.Evidence{overview(release(3, 0)), marker, peer503},
			"dependency_outage", rules.FeatPeer},
		{"no marker: only the released version fails, the old one served beside it", []loop.Evidence{overview(release(40, 0)), noMarker, peer503},
			"bad_release", rules.FeatVersionOnly},
		{"no marker: every version fails", []loop.Evidence{overview(release(40, 12)), noMarker, peer503},
			"dependency_outage", rules.FeatPeer},
		{"a configuration release: a flag flipped at the onset and the answers moved", []loop.Evidence{quiet(contracts.Facts{QualityShifts: flag}), marker},
			"config_regression", rules.FeatSettingShift},
		{"after a release, resends to a failing peer with no retried fault measured", []loop.Evidence{overview(contracts.Facts{}), marker, resent},
			"retry_storm", rules.FeatResend},
		{"a release: the answers moved, no flag", []loop.Evidence{quiet(contracts.Facts{QualityShifts: answersOnly}), marker},
			"prompt_regression", rules.FeatAnswerShift},
		{"no marker: the released version's new error names a setting", []loop.Evidence{overview(latent("no route configured for currency pair")), noMarker, ownFault},
			"config_regression", rules.FeatConfigSignature},
		{"no marker: the released version's new error names no setting", []loop.Evidence{overview(latent("assignment to entry in nil map")), noMarker, ownFault},
			"bad_release", rules.FeatLatentRelease},
		{"no release: a model provider's 529s inside the SDK's internal span", []loop.Evidence{modelOverview, noMarker, model("Internal"), retryLogs},
			"dependency_outage", rules.FeatPeer},
		{"no release: the service's own internal span fails", []loop.Evidence{modelOverview, noMarker, ownFault, retryLogs},
			"retry_storm", ""},
	}
	runFeatureCases(t, tests, "ov")
	// The service's own name is no signal's pattern; the same words in a
	// row are.
	for _, tc := range []struct {
		service, text string
		want          string
	}{{"mailroom", "mailroom", contracts.ClassUnknown}, {"mailroom", "mailroom OOMKilled", "resource_saturation"}} {
		o := rules.Observe(tc.service, []loop.Evidence{ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0), P95Ms: f64(3000), OnsetUnknown: "none"}, ""), noMarker, named(tc.text)})
		if got := rules.Diagnose(o)[0].Class; got != tc.want {
			t.Errorf("%s in %q: %s, want %s", tc.service, tc.text, got, tc.want)
		}
	}
}
