package rules_test

import (
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"

	"github.com/stretchr/testify/require"
)

// TestDiagnoseFromSemanticConventions: the rules read OpenTelemetry features
// of the error spans (in either semantic-convention version), not the words
// of their messages; the claim names the feature it read.
func TestDiagnoseFromSemanticConventions(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	// An overview with a low error rate, so that only the features decide.
	overview := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.03), P95Ms: f64(200), Onset: &onset}, "")
	// hot is an overview whose error rate alone reads as a release fault
	// after a deployment (at least rules.ReleaseErrorRate).
	hot := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.3), P95Ms: f64(200), Onset: &onset}, "")
	marker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "2.14.0", At: onset.Add(-4 * time.Minute)}}}, "")
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	traces := func(rows ...string) loop.Evidence {
		return ev("tr", contracts.ToolErrorTraces, contracts.Facts{}, "tool: error_traces\n<<<DATA rows=n\n"+strings.Join(rows, "\n")+"\nDATA>>>")
	}
	tests := []struct {
		name     string
		evidence []loop.Evidence
		class    string
		feature  rules.Feature
	}{
		{"5xx under the new attribute name after a release", []loop.Evidence{hot, marker, traces(
			`{"service":"shop-api","version":"2.13.0","kind":"Server","error":true,"http.response.status_code":500,"status_message":"Duplicate key LineItem"}`)},
			"bad_release", rules.FeatServer5xx},
		{"5xx under the old attribute name after a release", []loop.Evidence{hot, marker, traces(
			`{"service":"shop-api","version":"2.13.0","kind":"Server","error":true,"http.status_code":503,"status_message":"no"}`)},
			"bad_release", rules.FeatServer5xx},
		{"errors only on the new version are cited", []loop.Evidence{hot, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.status_code":500,"status_message":"x"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.status_code":500,"status_message":"y"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.status_code":500,"status_message":"z"}`)},
			"bad_release", rules.FeatNewVersion},
		{"a trickle of 5xx without exceptions after a release decides nothing", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.response.status_code":500,"status_message":"internal error"}`)},
			contracts.ClassUnknown, ""},
		{"an exception after a release is a release fault", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.response.status_code":500,"exception.type":"java.lang.NullPointerException","status_message":"x"}`)},
			"bad_release", rules.FeatException},
		{"errors only on the new version do not make a release fault alone", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Internal","error":true,"status_message":"x"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Internal","error":true,"status_message":"y"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Internal","error":true,"status_message":"z"}`)},
			contracts.ClassUnknown, ""},
		{"a failing dependency with a coinciding release is the dependency", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Client","error":true,"net.peer.name":"checkout-test.adyen.com","http.status_code":503,"status_message":"x"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.status_code":502,"status_message":"x"}`)},
			"dependency_outage", rules.FeatPeer},
		{"a pool attribute on failing spans", []loop.Evidence{overview, noMarker, traces(
			`{"service":"shop-api","kind":"Internal","error":true,"db.client.connection.pool.name":"accounts","status_message":"timed out acquiring"}`)},
			"db_pool_exhaustion", rules.FeatPool},
		{"resends of failing client spans after a release", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","kind":"Client","error":true,"http.request.resend_count":3,"peer.service":"identity","status_message":"context deadline exceeded"}`)},
			"retry_storm", rules.FeatResend},
		{"failing client spans to a peer, no release", []loop.Evidence{overview, noMarker, traces(
			`{"service":"shop-api","kind":"Client","error":true,"net.peer.name":"checkout-test.adyen.com","http.status_code":503,"status_message":"x"}`,
			`{"service":"shop-api","kind":"Server","error":true,"http.status_code":502,"status_message":"x"}`)},
			"dependency_outage", rules.FeatPeer},
		{"another service's rows are not this service's features", []loop.Evidence{overview, marker, traces(
			`{"service":"web","version":"2.14.0","kind":"Server","error":true,"http.status_code":500}`)},
			contracts.ClassUnknown, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			claims := rules.Diagnose(rules.Observe("shop-api", tc.evidence))
			require.Equal(t, tc.class, claims[0].Class, claims[0].Statement)
			require.NotRegexp(t, `[0-9]`, claims[0].Statement, "statements carry no numbers")
			if tc.feature != "" {
				require.Contains(t, claims[0].Statement, string(tc.feature))
				require.Contains(t, claims[0].EvidenceIDs, "tr")
			}
		})
	}
}
