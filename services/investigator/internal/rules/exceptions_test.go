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

// TestExceptionsBeforeTheOnsetAreTheBaselines: FeatException reads the
// failing spans since the onset; error_traces also returns the baseline's
// own failing spans, whose exceptions say nothing about a release.
// s3141777-w013 (branch h44rules): a release coincided with a slow
// doc-retriever; 5 of the 7 spans carrying error.type InternalError were
// the baseline's, hours before the onset, and the rules read bad_release.
// Each case has a twin that differs in the time of the exception rows.
func TestExceptionsBeforeTheOnsetAreTheBaselines(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	overview := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.03), P95Ms: f64(400), Onset: &onset}, "")
	marker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v28", At: onset.Add(-6 * time.Minute)}}}, "")
	thrown := func(at time.Time, n int) []string {
		var rows []string
		for i := range n {
			rows = append(rows, fmt.Sprintf(`{"service":"shop-api","version":"v27","kind":"Server","error":true,"http.response.status_code":500,"error.type":"InternalError","status_message":"broken pipe %d","span_id":"x%d","time":%q}`,
				i, i, at.Add(time.Duration(i)*time.Minute).UTC().Format(time.RFC3339Nano)))
		}
		return rows
	}
	// since are the regression's own failing spans: timeouts answered 504,
	// error.type the status code, which names no exception.
	since := func(n int) []string {
		var rows []string
		for i := range n {
			rows = append(rows, fmt.Sprintf(`{"service":"shop-api","version":"v28","kind":"Server","error":true,"http.response.status_code":504,"error.type":"504","status_message":"deadline %d","span_id":"d%d","time":%q}`,
				i, i, onset.Add(time.Duration(i+1)*time.Minute).UTC().Format(time.RFC3339Nano)))
		}
		return rows
	}
	traces := func(groups ...[]string) loop.Evidence {
		var rows []string
		for _, g := range groups {
			rows = append(rows, g...)
		}
		return errorTraces(rows...)
	}
	tests := []featureCase{
		{"the baseline's exceptions, hours before the onset, are no release fault", []loop.Evidence{overview, marker,
			traces(thrown(onset.Add(-2*time.Hour), 5), since(4))}, contracts.ClassUnknown, ""},
		{"the same exceptions since the onset are a release fault", []loop.Evidence{overview, marker,
			traces(thrown(onset.Add(time.Minute), 5), since(4))}, "bad_release", rules.FeatException},
		{"a second before the onset is still the baseline's", []loop.Evidence{overview, marker,
			traces(thrown(onset.Add(-5*time.Minute-time.Second), 5), since(4))}, contracts.ClassUnknown, ""},
		{"exceptions on most spans since the onset count beside the baseline's", []loop.Evidence{overview, marker,
			traces(thrown(onset.Add(-2*time.Hour), 5), thrown(onset.Add(time.Minute), 3), since(2))}, "bad_release", rules.FeatException},
		{"a minority of exceptions since the onset is noise", []loop.Evidence{overview, marker,
			traces(thrown(onset.Add(time.Minute), 1), since(4))}, contracts.ClassUnknown, ""},
	}
	runFeatureCases(t, tests, "tr")
}
