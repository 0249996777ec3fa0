package fakesignoz

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func postTo(t *testing.T, s *Server, body []byte) []byte {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	status, got, _ := do(t, ts, http.MethodPost, "/api/v5/query_range", keyHeaders(), body)
	require.Equal(t, http.StatusOK, status, "%s", got)
	return got
}

// A kept answer is the answer: every captured request, asked of servers
// sharing one Telemetry (first, and again), gets the bytes a server with
// its own Telemetry gives.
func TestKeptAnswersAreTheAnswers(t *testing.T) {
	t.Parallel()
	inc := fixtureIncident(t)
	shared := NewTelemetry(inc)
	for _, c := range loadCaptured(t) {
		if c.Path != "/api/v5/query_range" {
			continue
		}
		t.Run(c.What, func(t *testing.T) {
			want := postTo(t, New(inc, Options{APIKey: testKey}), c.Body)
			first := postTo(t, shared.Server(Options{APIKey: testKey}), c.Body)
			again := postTo(t, shared.Server(Options{APIKey: testKey}), c.Body)
			require.JSONEq(t, string(want), string(first))
			require.JSONEq(t, string(want), string(again))
		})
	}
	shared.answers.mu.Lock()
	defer shared.answers.mu.Unlock()
	require.NotEmpty(t, shared.answers.byKey, "the answers were kept")
	require.NotEmpty(t, shared.answers.written, "the bodies' windows were kept: asked again, a body is not decoded again")
}

// The key of a kept answer is the request and its window once measured:
// the same bytes asked of a server that measures "the last 30 minutes" from
// the replay clock and of one that takes them as written are two answers,
// each with its own warnings, and each asked again is the same answer.
func TestKeptAnswersFollowTheMeasuredWindow(t *testing.T) {
	t.Parallel()
	inc := fixtureIncident(t)
	shared := NewTelemetry(inc)
	wall := time.Now().UTC().Truncate(time.Millisecond)
	relative := []byte(fmt.Sprintf(`{"schemaVersion":"v1","start":%d,"end":%d,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","aggregations":[{"expression":"count()"},{"expression":"avg(no.such.key)"}]}}]}}`,
		wall.Add(-30*time.Minute).UnixMilli(), wall.UnixMilli()))
	replay := func() *Server {
		return shared.Server(Options{APIKey: testKey, Now: func() time.Time { return wall }, ReplayNow: func() time.Time { return fixtureNow }})
	}
	asWritten := func() *Server {
		return shared.Server(Options{APIKey: testKey, Now: func() time.Time { return wall }})
	}
	for range 2 {
		got := string(postTo(t, replay(), relative))
		require.Equal(t, 1, strings.Count(got, "not found in metadata"), "%s", got)
		require.Equal(t, 1, strings.Count(got, "replay clock"), "%s", got)
		require.NotContains(t, got, "holds none of this incident's telemetry")

		got = string(postTo(t, asWritten(), relative))
		require.Equal(t, 1, strings.Count(got, "not found in metadata"), "%s", got)
		require.NotContains(t, got, "replay clock")
		require.Contains(t, got, "holds none of this incident's telemetry")
	}
	shared.answers.mu.Lock()
	defer shared.answers.mu.Unlock()
	require.Len(t, shared.answers.byKey, 2)
}

// The answers kept are bounded: past maxAnswers the oldest goes.
func TestKeptAnswersAreBounded(t *testing.T) {
	t.Parallel()
	st := newStore(fixtureIncident(t))
	var a answers
	for i := range maxAnswers + 10 {
		body := []byte(fmt.Sprintf(`{"schemaVersion":"v1","start":%d,"end":%d,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","aggregations":[{"expression":"count()"}]}}]}}`,
			fixtureNow.Add(-time.Hour).UnixMilli()+int64(i), fixtureNow.UnixMilli()))
		req, err := decodeQueryRange(body)
		require.Nil(t, err)
		rec := httptest.NewRecorder()
		require.Equal(t, http.StatusOK, a.serve(rec, body, req, func() (*queryRangeResponse, *apiError) { return execute(req, st) }))
	}
	require.Len(t, a.byKey, maxAnswers)
	require.Len(t, a.order, maxAnswers)
	total := 0
	for _, b := range a.byKey {
		total += len(b)
	}
	require.Equal(t, total, a.bytes)
}

// getter answers what record.get answers, for every key the data holds,
// every column and deprecated name, in every field context.
func TestGetterAgreesWithGet(t *testing.T) {
	t.Parallel()
	st := newStore(fixtureIncident(t))
	for _, signal := range []string{signalTraces, signalLogs, signalMetrics} {
		names := slices.Concat(rawSpanColumns, rawLogColumns, []string{"serviceName", "httpRoute", "durationNano", "no.such.key"})
		for k := range st.resourceKeys[signal] {
			names = append(names, k)
		}
		for k := range st.attrKeys[signal] {
			names = append(names, k)
		}
		for _, name := range names {
			for _, fc := range []string{"", "resource", "attribute", "span", "log"} {
				k := fieldKey{Name: name, FieldContext: fc}
				get := getter(k, signal)
				recs := st.records(signal)
				for i := range recs {
					wv, wok := recs[i].get(k, signal)
					gv, gok := get(&recs[i])
					require.Equal(t, wok, gok, "%s %s/%s", signal, fc, name)
					require.Equal(t, wv, gv, "%s %s/%s", signal, fc, name)
				}
			}
		}
	}
}
