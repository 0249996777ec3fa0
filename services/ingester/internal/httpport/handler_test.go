package httpport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/lockedbuf"
	"agentk/services/ingester/internal/httpport"
	"agentk/services/ingester/internal/incidents"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

type fakeIngester struct {
	mu   sync.Mutex
	got  []contracts.AlertV1
	fail error
}

func (f *fakeIngester) Ingest(_ context.Context, a contracts.AlertV1, _ time.Time) (incidents.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return incidents.Result{}, f.fail
	}
	f.got = append(f.got, a)
	if a.Test {
		return incidents.Result{Outcome: incidents.TestAck, IncidentID: a.IncidentID}, nil
	}
	return incidents.Result{Outcome: incidents.Opened, IncidentID: a.IncidentID}, nil
}

type fakeMetrics struct {
	mu       sync.Mutex
	received int
	rejected map[string]int
	filed    map[incidents.Outcome]int
}

func (m *fakeMetrics) Received(_ context.Context, n int) { m.mu.Lock(); m.received += n; m.mu.Unlock() }
func (m *fakeMetrics) Rejected(_ context.Context, r string) {
	m.mu.Lock()
	m.rejected[r]++
	m.mu.Unlock()
}
func (m *fakeMetrics) Filed(_ context.Context, o incidents.Outcome) {
	m.mu.Lock()
	m.filed[o]++
	m.mu.Unlock()
}

func payload(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../webhook/testdata/" + name)
	require.NoError(t, err)
	return string(b)
}

func TestHandler(t *testing.T) {
	t.Parallel()
	threshold := payload(t, "signoz-threshold.json")
	tests := []struct {
		name     string
		auth     httpport.Auth
		method   string
		ctype    string
		header   func(r *http.Request)
		body     string
		fail     error
		maxBody  int64
		length   int64 // the declared Content-Length, when not the body's
		code     int
		field    string
		reason   string
		outcome  string
		ingested int
	}{
		{name: "bearer token accepted", auth: httpport.Auth{Token: "tok"}, header: bearer("tok"), body: threshold, code: 200, outcome: "opened", ingested: 1},
		{name: "wrong bearer token", auth: httpport.Auth{Token: "tok"}, header: bearer("tok2"), body: threshold, code: 401, reason: httpport.ReasonUnauthorized},
		{name: "no credentials sent", auth: httpport.Auth{Token: "tok"}, body: threshold, code: 401, reason: httpport.ReasonUnauthorized},
		{name: "basic auth accepted", auth: httpport.Auth{BasicUser: "signoz", BasicPassword: "pw"}, header: basic("signoz", "pw"), body: threshold, code: 200, outcome: "opened", ingested: 1},
		{name: "basic auth wrong password", auth: httpport.Auth{BasicUser: "signoz", BasicPassword: "pw"}, header: basic("signoz", "px"), body: threshold, code: 401, reason: httpport.ReasonUnauthorized},
		{name: "basic sent where only a token is configured", auth: httpport.Auth{Token: "tok"}, header: basic("tok", "tok"), body: threshold, code: 401, reason: httpport.ReasonUnauthorized},
		{name: "either credential when both configured", auth: httpport.Auth{Token: "tok", BasicUser: "u", BasicPassword: "p"}, header: basic("u", "p"), body: threshold, code: 200, outcome: "opened", ingested: 1},
		{name: "local-only: no credential needed", body: threshold, code: 200, outcome: "opened", ingested: 1},
		{name: "GET refused", method: http.MethodGet, code: 405, reason: httpport.ReasonMethod},
		{name: "form content type refused", ctype: "application/x-www-form-urlencoded", body: threshold, code: 415, reason: httpport.ReasonContentType},
		{name: "charset parameter fine", ctype: "application/json; charset=utf-8", body: threshold, code: 200, outcome: "opened", ingested: 1},
		{name: "body over the limit", maxBody: 100, body: threshold, code: 413, reason: httpport.ReasonTooLarge},
		{name: "body shorter than its declared length", length: int64(len(threshold)) + 10, body: threshold, code: 400, reason: httpport.ReasonInvalid},
		{name: "unknown length read as it comes", length: -1, body: threshold, code: 200, outcome: "opened", ingested: 1},
		{name: "malformed JSON", body: `{"alerts":[`, code: 400, reason: httpport.ReasonInvalid},
		{name: "missing startsAt names the field", body: `{"alerts":[{"status":"firing","labels":{}}]}`, code: 400, field: "alerts[0].startsAt", reason: httpport.ReasonInvalid},
		{name: "bus down is a 503 so SigNoz retries", body: threshold, fail: incidents.ErrStore, code: 503, reason: httpport.ReasonUnavailable},
		{name: "100 KB service.name is a 400 naming the label", body: strings.Replace(threshold, `"service.name": "shop-api"`, `"service.name": "`+strings.Repeat("s", 100<<10)+`"`, 1), code: 400, field: "alerts[0].labels.service.name", reason: httpport.ReasonInvalid},
		{name: "content the bus refuses is a 422, never a 503", body: threshold, fail: fmt.Errorf("publish: %w", incidents.ErrRefused), code: 422, reason: httpport.ReasonInvalid},
		{name: "test notification acknowledged", body: payload(t, "signoz-test-notification.json"), code: 200, outcome: "test", ingested: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ing := &fakeIngester{fail: tc.fail}
			m := &fakeMetrics{rejected: map[string]int{}, filed: map[incidents.Outcome]int{}}
			maxBody := tc.maxBody
			if maxBody == 0 {
				maxBody = 1 << 20
			}
			h := httpport.New(ing, httpport.Options{Auth: tc.auth, MaxBody: maxBody, Now: func() time.Time { return t0 }, Metrics: m})
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			r := httptest.NewRequest(method, httpport.Path, strings.NewReader(tc.body))
			ctype := tc.ctype
			if ctype == "" {
				ctype = "application/json"
			}
			r.Header.Set("Content-Type", ctype)
			if tc.length != 0 {
				r.ContentLength = tc.length
			}
			if tc.header != nil {
				tc.header(r)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			require.Equal(t, tc.code, w.Code, w.Body.String())
			require.Equal(t, "application/json", w.Header().Get("Content-Type"))
			require.Len(t, ing.got, tc.ingested)
			if tc.code >= 400 {
				var eb httpport.ErrorBody
				require.NoError(t, json.Unmarshal(w.Body.Bytes(), &eb))
				require.NotEmpty(t, eb.Error)
				require.Equal(t, tc.field, eb.Field)
				require.Equal(t, 1, m.rejected[tc.reason])
				return
			}
			var resp httpport.Response
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
			require.Equal(t, tc.outcome, resp.Alerts[0].Outcome)
			require.Equal(t, 1, m.received)
		})
	}
}

func bearer(tok string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
}

func basic(u, p string) func(*http.Request) {
	return func(r *http.Request) { r.SetBasicAuth(u, p) }
}

// TestRejectionLogsCarryTheError: issue 19 found the rejection log without
// the reason; an operator reading it must see which field and why.
func TestRejectionLogsCarryTheError(t *testing.T) {
	t.Parallel()
	var buf lockedbuf.Buffer
	h := httpport.New(&fakeIngester{}, httpport.Options{MaxBody: 1 << 20, Now: func() time.Time { return t0 },
		Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	r := httptest.NewRequest(http.MethodPost, httpport.Path, strings.NewReader(`{"alerts":[{"status":"firing","labels":{}}]}`))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, 400, w.Code)
	require.Contains(t, buf.String(), `"err":"webhook: field \"alerts[0].startsAt\": required"`)
}
