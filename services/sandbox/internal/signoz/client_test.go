package signoz

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// server answers like SigNoz: each call takes the next canned (status, body).
func server(t *testing.T, replies []reply, check func(r *http.Request, body []byte)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if check != nil {
			check(r, b)
		}
		i := int(n.Add(1)) - 1
		if i >= len(replies) {
			i = len(replies) - 1
		}
		rp := replies[i]
		if rp.retryAfter != "" {
			w.Header().Set("Retry-After", rp.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rp.status)
		_, _ = w.Write([]byte(rp.body))
	}))
	t.Cleanup(s.Close)
	return s, &n
}

type reply struct {
	status     int
	body       string
	retryAfter string
}

const errBody = `{"status":"error","error":{"type":"invalid-input","code":"invalid_input","message":"key 'foo' not found","url":"","errors":[{"message":"did you mean 'name'?"}],"suggestions":[]}}`

func noWait(waits *[]time.Duration) func(context.Context, time.Duration) error {
	return func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }
}

func TestQueryRange(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/raw_traces.json")
	require.NoError(t, err)
	ok := reply{200, string(raw), ""}
	tests := []struct {
		name      string
		replies   []reply
		auth      string
		wantCalls int32
		wantErr   error
		wantText  string
		wantWaits []time.Duration
	}{
		{name: "success", replies: []reply{ok}, wantCalls: 1},
		{name: "bearer", replies: []reply{ok}, auth: AuthBearer, wantCalls: 1},
		{name: "429 then success honours Retry-After", replies: []reply{{429, errBody, "2"}, ok}, wantCalls: 2, wantWaits: []time.Duration{2 * time.Second}},
		{name: "5xx backoff doubles then gives up", replies: []reply{{503, "upstream down", ""}}, wantCalls: 3, wantErr: ErrUnavailable,
			wantText: "HTTP 503", wantWaits: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}},
		{name: "400 error envelope is readable and not retried", replies: []reply{{400, errBody, ""}}, wantCalls: 1, wantErr: ErrAPI,
			wantText: "signoz: HTTP 400: invalid_input: key 'foo' not found (did you mean 'name'?)"},
		{name: "status error with 200", replies: []reply{{200, errBody, ""}}, wantCalls: 1, wantErr: ErrAPI, wantText: "invalid_input"},
		{name: "401", replies: []reply{{401, `{"status":"error","error":{"code":"unauthenticated","message":"invalid api key"}}`, ""}}, wantCalls: 1, wantErr: ErrAuth},
		{name: "not json", replies: []reply{{200, "<html>", ""}}, wantCalls: 1, wantErr: ErrDecode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, n := server(t, tt.replies, func(r *http.Request, body []byte) {
				require.Equal(t, "/api/v5/query_range", r.URL.Path)
				require.Equal(t, http.MethodPost, r.Method)
				if tt.auth == AuthBearer {
					require.Equal(t, "Bearer k3y", r.Header.Get("Authorization"))
					require.Empty(t, r.Header.Get("SIGNOZ-API-KEY"))
				} else {
					require.Equal(t, "k3y", r.Header.Get("SIGNOZ-API-KEY"))
				}
				var req map[string]any
				require.NoError(t, json.Unmarshal(body, &req))
				require.Equal(t, "v1", req["schemaVersion"])
			})
			var waits []time.Duration
			c := &Client{BaseURL: s.URL, APIKey: "k3y", Auth: tt.auth, HTTP: s.Client(), Backoff: 100 * time.Millisecond, Wait: noWait(&waits)}
			res, err := c.QueryRange(context.Background(), NewRequest(RequestRaw, 1, 2, BuilderQuery{Name: "A", Signal: SignalTraces}))
			require.Equal(t, tt.wantCalls, n.Load())
			require.Equal(t, tt.wantWaits, waits)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				require.Contains(t, err.Error(), tt.wantText)
				require.NotContains(t, err.Error(), "k3y")
				return
			}
			require.NoError(t, err)
			require.Equal(t, raw, res.Body)
			rows, err := res.Response.Raw()
			require.NoError(t, err)
			require.Len(t, rows, 1)
			require.Equal(t, "shop-api", rows[0].Rows[0].Data["service.name"])
		})
	}
}

func TestQueryRangeDown(t *testing.T) {
	t.Parallel()
	s := httptest.NewServer(http.NotFoundHandler())
	s.Close()
	var waits []time.Duration
	c := &Client{BaseURL: s.URL, APIKey: "k", Attempts: 2, Wait: noWait(&waits)}
	_, err := c.QueryRange(context.Background(), NewRequest(RequestRaw, 1, 2))
	require.ErrorIs(t, err, ErrUnavailable)
	require.Len(t, waits, 1)
}

func TestQueryRangeContextCancelled(t *testing.T) {
	t.Parallel()
	s, _ := server(t, []reply{{503, "", ""}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{BaseURL: s.URL, APIKey: "k", Wait: func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }}
	_, err := c.QueryRange(ctx, NewRequest(RequestRaw, 1, 2))
	require.True(t, errors.Is(err, ErrUnavailable) || errors.Is(err, context.Canceled))
}

func TestDecodeShapes(t *testing.T) {
	t.Parallel()
	ts := `{"status":"success","data":{"type":"time_series","data":{"results":[{"queryName":"A","aggregations":[{"index":0,"alias":"","meta":{},"series":[{"labels":[{"key":{"name":"has_error"},"value":"true"}],"values":[{"timestamp":1764496800000,"value":3},{"timestamp":1764496860000,"value":"NaN","partial":true}]}]}]}]},"meta":{"rowsScanned":10}}}`
	r, err := Decode([]byte(ts))
	require.NoError(t, err)
	series, err := r.TimeSeries()
	require.NoError(t, err)
	v := series[0].Aggregations[0].Series[0].Values
	require.Equal(t, 3.0, v[0].Value)
	require.True(t, v[1].Partial)
	require.NotEqual(t, v[1].Value, v[1].Value, "NaN")
	_, err = r.Raw()
	require.ErrorIs(t, err, ErrDecode, "a time series is not a raw result")

	sc := `{"status":"success","data":{"type":"scalar","data":{"results":[{"queryName":"A","columns":[{"name":"name","queryName":"A","aggregationIndex":0,"columnType":"group","signal":"traces","fieldContext":"span"},{"name":"__result_0","queryName":"A","aggregationIndex":0,"columnType":"aggregation"}],"data":[["POST /ask",42]]}]}}}`
	r, err = Decode([]byte(sc))
	require.NoError(t, err)
	tab, err := r.Scalar()
	require.NoError(t, err)
	require.Equal(t, "group", tab[0].Columns[0].ColumnType)
	require.Equal(t, []any{"POST /ask", 42.0}, tab[0].Data[0])
}

func FuzzDecode(f *testing.F) {
	raw, _ := os.ReadFile("testdata/raw_traces.json")
	f.Add(raw)
	f.Add([]byte(errBody))
	f.Add([]byte(`{"status":"success","data":{"type":"scalar","data":{"results":[{"columns":[{"name":"x","columnType":"aggregation"}],"data":[["NaN"]]}]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		_, _ = r.Raw()
		_, _ = r.Scalar()
		_, _ = r.TimeSeries()
	})
}

// FuzzDecodeFields: any body decodes or fails with an error, never a panic.
func FuzzDecodeFields(f *testing.F) {
	for _, s := range []string{
		`{"status":"success","data":{"keys":{"a":[{"name":"a","fieldContext":"attribute","fieldDataType":"string"}]},"complete":true}}`,
		`{"status":"success","data":{"values":{"stringValues":["x"],"numberValues":[1.5],"boolValues":[true]},"complete":false}}`,
		`{"status":"error","error":{"code":"invalid_input","message":"bad"}}`, `null`, `{"status":"success","data":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeFields(b)
	})
}
