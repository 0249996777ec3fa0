package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// sampleOf is a raw answer of n spans carrying attrs (name → JSON value).
func sampleOf(t *testing.T, n int, attrs map[string]string) signoz.Response {
	t.Helper()
	var rows []string
	for i := range n {
		var kv []string
		for k, v := range attrs {
			kv = append(kv, fmt.Sprintf("%q:%s", k, strings.ReplaceAll(v, "#", fmt.Sprint(i))))
		}
		rows = append(rows, fmt.Sprintf(`{"timestamp":"2026-11-20T12:00:%02dZ","data":{"attributes":{%s}}}`, i%60, strings.Join(kv, ",")))
	}
	body := fmt.Sprintf(`{"type":"raw","data":{"results":[{"queryName":"A","rows":[%s]}]}}`, strings.Join(rows, ","))
	var r signoz.Response
	require.NoError(t, json.Unmarshal([]byte(body), &r))
	return r
}

// sampleKeys answers as sampleKeysOf, for the response it was asked of
// before (kept), for another response with the same bytes (kept too) and
// for one whose bytes differ (never mistaken for a kept one): a service_overview asks it of its
// sample at every stage.
func TestSampleKeysKeptByTheResponsesBytes(t *testing.T) {
	app := sampleOf(t, 12, map[string]string{"app.tier": `"gold"`, "app.score": `#`, "llm.retries": `1`})
	other := sampleOf(t, 12, map[string]string{"app.plan": `"free"`, "app.latency_ms": `#`})
	same := sampleOf(t, 12, map[string]string{"app.tier": `"gold"`, "app.score": `#`, "llm.retries": `1`})
	want := func(r signoz.Response) string {
		k, rt := sampleKeysOf(r)
		return fmt.Sprint(k, rt)
	}
	for i, r := range []signoz.Response{app, other, app, same, other, app} {
		k, rt := sampleKeys(r)
		require.Equal(t, want(r), fmt.Sprint(k, rt), "call %d", i)
	}
	k, rt := sampleKeys(app)
	require.Equal(t, []qualityKey{{name: "app.score", numeric: true}, {name: "app.tier"}}, k)
	require.Equal(t, []string{"llm.retries"}, rt)
	k, rt = sampleKeys(other)
	require.Equal(t, []qualityKey{{name: "app.latency_ms", numeric: true}, {name: "app.plan"}}, k)
	require.Empty(t, rt)

	// The same bytes at another address are the kept response (another
	// replay's answer to the same query); one byte off is another response.
	copied := []json.RawMessage{slices.Clone(app.Data.Results[0])}
	require.True(t, sameResults(app.Data.Results, copied))
	require.True(t, sameResults(app.Data.Results, app.Data.Results))
	copied[0][len(copied[0])-2] = ' '
	require.False(t, sameResults(app.Data.Results, copied))
	// A kept response's sub-slice (same address, shorter) is another response.
	cut := app
	cut.Data.Results = []json.RawMessage{app.Data.Results[0][:len(app.Data.Results[0])-1]}
	require.False(t, sameResults(app.Data.Results, cut.Data.Results))
}

// matchesRetryPattern answers as RetryAttributePattern, asked once or again,
// ASCII or not (ſ folds to s, K to k under (?i)).
func TestRetryPatternKeptByName(t *testing.T) {
	for _, k := range []string{"llm.retries", "LLM.Retries", "app.attempt", "resend", "RESEND_COUNT", "reſend", "retried_at",
		"app.retr", "app.tier", "", "http.request.resend_count", "résumé", "llm.retries"} {
		for range 2 {
			require.Equal(t, RetryAttributePattern.MatchString(k), matchesRetryPattern(k), k)
		}
	}
}

// lagDestinations answers from the kept sample as it read the sample's
// consumer spans itself: the service's destinations, sorted, each once, at
// most MaxLagDestinations; none for a service without consumer spans.
func TestLagDestinationsKeptWithTheSample(t *testing.T) {
	row := func(i int, svc, kind, dest string) string {
		return fmt.Sprintf(`{"timestamp":"2026-11-20T12:00:%02dZ","data":{"span_id":"s%d","kind_string":%q,"resource":{"service.name":%q},"attributes":{"messaging.destination.name":%q}}}`,
			i%60, i, kind, svc, dest)
	}
	var rows []string
	for i := range 14 {
		rows = append(rows, row(i, "worker", "Consumer", fmt.Sprintf("q%02d", 13-i%13)))
	}
	rows = append(rows, row(20, "worker", "Producer", "out"), row(21, "api", "Consumer", "orders"), row(22, "worker", "Consumer", ""))
	var r signoz.Response
	require.NoError(t, json.Unmarshal([]byte(`{"type":"raw","data":{"results":[{"queryName":"A","rows":[`+strings.Join(rows, ",")+`]}]}}`), &r))
	for range 2 {
		require.Equal(t, []string{"q01", "q02", "q03", "q04", "q05", "q06", "q07", "q08", "q09", "q10"}, lagDestinations("worker", r))
		require.Equal(t, []string{"orders"}, lagDestinations("api", r))
		require.Empty(t, lagDestinations("cart", r))
	}
	// The answer is the caller's: changing it changes no later one.
	d := lagDestinations("api", r)
	d[0] = "changed"
	require.Equal(t, []string{"orders"}, lagDestinations("api", r))
}
