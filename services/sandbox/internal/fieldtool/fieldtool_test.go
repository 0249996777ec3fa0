package fieldtool_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/contracts/table"
	"agentk/services/sandbox/fakesignoz"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/config"
	"agentk/services/sandbox/internal/fieldtool"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	lim := tools.DefaultLimits(nil)
	tests := []struct {
		name, args string
		want       fieldtool.Call
		err        string
	}{
		{"keys", `{"signal":"logs"}`, fieldtool.Call{Signal: "logs", Limit: lim.DefaultRows}, ""},
		{"values", `{"signal":"traces","key":"http.route","search":"/ask","limit":5}`, fieldtool.Call{Signal: "traces", Key: "http.route", Search: "/ask", Limit: 5}, ""},
		{"no signal", `{}`, fieldtool.Call{}, "signal"},
		{"metrics", `{"signal":"metrics"}`, fieldtool.Call{}, "signal"},
		{"key with a quote", `{"signal":"traces","key":"a' OR 1=1"}`, fieldtool.Call{}, "key"},
		{"limit", `{"signal":"traces","limit":500}`, fieldtool.Call{}, "limit"},
		{"unknown field", `{"signal":"traces","service":"x"}`, fieldtool.Call{}, "list_fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := fieldtool.Validate(json.RawMessage(tt.args), lim)
			if tt.err != "" {
				require.ErrorIs(t, err, fieldtool.ErrBadArguments)
				require.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestServiceValuesNeverShowThePipeline(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC)
	span := func(svc string) incident.Span {
		return incident.Span{Timestamp: at, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", Name: "x", Kind: 2,
			Resource: map[string]string{"service.name": svc}}
	}
	inc := &incident.Incident{Spans: []incident.Span{span("shop-api"), span("agentk-sandbox"), span("agentk-gate")}}
	srv := httptest.NewServer(fakesignoz.New(inc, fakesignoz.Options{APIKey: "k"}))
	t.Cleanup(srv.Close)
	q := &signoz.Client{BaseURL: srv.URL, APIKey: "k", HTTP: srv.Client()}
	lim := tools.DefaultLimits(config.DefaultExclude)
	for _, key := range []string{"service.name", "resource.service.name"} {
		out, err := fieldtool.Run(context.Background(), q, fieldtool.Call{Signal: "traces", Key: key, Limit: 20}, lim, compact.DefaultLimits)
		require.NoError(t, err)
		require.Contains(t, out.Compact, `"value":"shop-api"`)
		require.NotContains(t, out.Compact, "agentk-")
		require.Contains(t, out.Compact, "values found: 1")
	}
}

func TestKeysAreListedWithContextAndType(t *testing.T) {
	t.Parallel()
	inc := &incident.Incident{Spans: []incident.Span{{
		Timestamp: time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC), TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", Name: "x", Kind: 2,
		Resource:   map[string]string{"service.name": "shop-api"},
		Attributes: map[string]json.RawMessage{"app.retry.count": json.RawMessage(`3`), "app.cache.hit": json.RawMessage(`true`)},
	}}}
	srv := httptest.NewServer(fakesignoz.New(inc, fakesignoz.Options{APIKey: "k"}))
	t.Cleanup(srv.Close)
	q := &signoz.Client{BaseURL: srv.URL, APIKey: "k", HTTP: srv.Client()}
	out, err := fieldtool.Run(context.Background(), q, fieldtool.Call{Signal: "traces", Search: "app.", Limit: 20}, tools.DefaultLimits(nil), compact.DefaultLimits)
	require.NoError(t, err)
	rows := table.Legacy(out.Compact) // one JSON object per row
	require.Contains(t, rows, `{"context":"attribute","key":"app.cache.hit","type":"bool"}`)
	require.Contains(t, rows, `{"context":"attribute","key":"app.retry.count","type":"number"}`)
	require.Contains(t, out.Compact, "keys found: 2")
	require.NotEmpty(t, out.Body)

	out, err = fieldtool.Run(context.Background(), q, fieldtool.Call{Signal: "traces", Limit: 3}, tools.DefaultLimits(nil), compact.DefaultLimits)
	require.NoError(t, err)
	require.Contains(t, out.Compact, "showing at most 3")
	require.Contains(t, out.Compact, "rows=3")
}

// list_fields validates with the schema tools compiled from its contract.
func TestListFieldsHasItsSchema(t *testing.T) {
	require.NotNil(t, tools.Schema(contracts.ToolListFields))
}
