package fakesignoz

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// FuzzParseFilter: the parser never panics, and whatever it accepts can be
// evaluated on spans and logs without panicking.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{
		"service.name = 'ledger-svc' AND has_error = true",
		"http.response.status_code >= 500 OR name IN ('a', \"b\")",
		"NOT (x EXISTS) body CONTAINS 'timeout'",
		"name LIKE 'POST %' AND duration_nano BETWEEN 1 AND 2e9",
		"resource.service.name NOT IN ['a'] AND attribute.k REGEXP '^v[0-9]+$'",
	} {
		f.Add(s)
	}
	span := spanRecord(incident.Span{
		Timestamp: time.Unix(1763400000, 0), Name: "POST /x", Kind: 2, HasError: true,
		Resource:   map[string]string{"service.name": "ledger-svc"},
		Attributes: map[string]json.RawMessage{"http.response.status_code": json.RawMessage(`500`), "k": json.RawMessage(`"v1"`)},
	})
	log := logRecord(incident.Log{Timestamp: time.Unix(1763400000, 0), SeverityText: "ERROR", Body: "timeout"}, 0)
	f.Fuzz(func(t *testing.T, expr string) {
		n, err := parseFilter(expr)
		if err != nil {
			return
		}
		matches(n, &span, signalTraces)
		matches(n, &log, signalLogs)
	})
}

// FuzzDecodeQueryRange: any body is either refused with a 400 error or
// answered; neither decoding nor executing panics.
func FuzzDecodeQueryRange(f *testing.F) {
	for _, s := range []string{
		`{"schemaVersion":"v1","start":1763400000000,"end":1763401800000,"requestType":"raw","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"logs","filter":{"expression":"severity_text = 'ERROR'"},"limit":5,"order":[{"key":{"name":"timestamp"},"direction":"desc"}]}}]}}`,
		`{"schemaVersion":"v1","start":1763400000000,"end":1763401800000,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","aggregations":[{"expression":"p95(duration_nano)"}],"groupBy":[{"name":"name"}]}}]}}`,
		`{"start":1763400000000,"end":1763401800000,"requestType":"time_series","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","stepInterval":"1m","aggregations":[{"expression":"countIf(has_error = true)"}]}}]}}`,
		`{"start":1,"end":2,"requestType":"time_series","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","stepInterval":0.001,"aggregations":[{"expression":"rate()"}]}}]}}`,
		`{"start":1763400000000,"end":1763401800000,"requestType":"time_series","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"metrics","stepInterval":60,"groupBy":[{"name":"service.name"}],"aggregations":[{"metricName":"signoz_calls_total","timeAggregation":"rate","spaceAggregation":"sum"}]}},{"type":"builder_query","spec":{"name":"B","signal":"metrics","aggregations":[{"metricName":"signoz_latency","spaceAggregation":"p95"}]}},{"type":"builder_formula","spec":{"name":"F1","expression":"(A - B.0) * -2 / 3.5e1"}}]}}`,
		`{"start":1763400000000,"end":1763401800000,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","disabled":true,"aggregations":[{"expression":"count()"}]}},{"type":"builder_formula","spec":{"name":"F","expression":"A/0","limit":1,"order":[{"key":{"name":"F"},"direction":"asc"}]}}]}}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	st := newStore(fixtureIncident(f))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, apiErr := decodeQueryRange(body)
		if apiErr != nil {
			if apiErr.status != http.StatusBadRequest {
				t.Fatalf("decode error with status %d: %v", apiErr.status, apiErr)
			}
			return
		}
		if _, err := execute(req, st); err != nil && err.status != http.StatusBadRequest {
			t.Fatalf("execute error with status %d: %v", err.status, err)
		}
	})
}

// FuzzFieldQuery: any query string for /api/v1/fields/* is refused with a 400
// or answered; nothing panics.
func FuzzFieldQuery(f *testing.F) {
	for _, s := range []string{"signal=traces", "signal=logs&searchText=svc&limit=2", "signal=metrics&name=status.code&metricName=signoz_calls_total",
		"signal=traces&name=service.name&fieldContext=resource&startUnixMilli=1&endUnixMilli=2", "signal=x&limit=-1"} {
		f.Add(s)
	}
	st := newStore(fixtureIncident(f))
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		fq, apiErr := parseFieldQuery(q, false)
		if apiErr != nil {
			if apiErr.status != http.StatusBadRequest {
				t.Fatalf("status %d: %v", apiErr.status, apiErr)
			}
			return
		}
		st.fieldKeys(fq)
		if fq.name != "" {
			st.fieldValues(fq)
		}
	})
}

// FuzzScalar: the decoder-free read of an attribute value agrees with
// encoding/json wherever it answers, for every valid JSON value.
func FuzzScalar(f *testing.F) {
	for _, s := range []string{`"api"`, `"a\"b"`, "\"\xff\"", `12.5`, `-3`, `1e400`, `true`, `null`, `[1]`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := scalar(raw)
		if !ok || !json.Valid(raw) {
			return
		}
		var want any
		require.NoError(t, json.Unmarshal(raw, &want))
		require.Equal(t, want, got)
	})
}
