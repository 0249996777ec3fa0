package executor

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/services/sandbox/fakesignoz"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

func TestListFieldsIsRecordedAsEvidence(t *testing.T) {
	t.Parallel()
	ing, inv, sbx := signer(t), signer(t), signer(t)
	kr, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: ing.KeyID(), Role: envelope.RoleIngester},
		envelope.KeyEntry{KeyID: inv.KeyID(), Role: envelope.RoleInvestigator},
		envelope.KeyEntry{KeyID: sbx.KeyID(), Role: envelope.RoleSandbox})
	require.NoError(t, err)
	startsAt := time.Date(2026, 11, 4, 10, 10, 0, 0, time.UTC)
	now := startsAt.Add(10 * time.Minute)
	inc := &incident.Incident{Spans: []incident.Span{{
		Timestamp: startsAt, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", Name: "POST /ask", Kind: 2,
		Resource:   map[string]string{"service.name": "shop-api", "service.version": "v2"},
		Attributes: map[string]json.RawMessage{"llm.guardrail.verdict": json.RawMessage(`"blocked"`), "http.response.status_code": json.RawMessage(`503`)},
	}}}
	srv := httptest.NewServer(fakesignoz.New(inc, fakesignoz.Options{APIKey: "k"}))
	t.Cleanup(srv.Close)
	alert, err := ing.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-1", Service: "shop-api", StartsAt: startsAt}, now, 0)
	require.NoError(t, err)
	call := func(args string) []byte {
		env, err := inv.SealJSON(contracts.SubjectToolCall, contracts.ToolCallV1{CallID: "c1", InvestigationID: "inv-1", IncidentID: "inc-1",
			Tool: contracts.ToolListFields, Arguments: json.RawMessage(args), Alert: alert.Marshal()}, now, 0)
		require.NoError(t, err)
		return env.Marshal()
	}
	client := &signoz.Client{BaseURL: srv.URL, APIKey: "k", HTTP: srv.Client()}
	tests := []struct {
		name     string
		args     string
		fields   bool
		maxCalls int
		want     []string
		errText  string
	}{
		{"keys", `{"signal":"traces","search":"llm"}`, true, 5, []string{`"key":"llm.guardrail.verdict"`, "keys found: 1"}, ""},
		{"values", `{"signal":"traces","key":"http.response.status_code"}`, true, 5, []string{`"value":"503"`}, ""},
		{"bad signal", `{"signal":"metrics"}`, true, 5, nil, "list_fields"},
		{"over budget", `{"signal":"traces"}`, true, 0, nil, "used all 0 tool calls"},
		{"not configured", `{"signal":"traces"}`, false, 5, nil, "not available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &fakeRecorder{}
			ex := &Executor{Keyring: kr, Signer: sbx, Query: fakeQuerier{}, Record: rec, Now: func() time.Time { return now },
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: tools.DefaultLimits(nil),
				Compact: compact.DefaultLimits, LinkBase: "http://localhost:8080", MaxCalls: tt.maxCalls}
			if tt.fields {
				ex.Fields = client
			}
			env, err := ex.Handle(context.Background(), call(tt.args))
			require.NoError(t, err)
			var reply contracts.ToolReplyV1
			_, err = kr.Open(env.Marshal(), contracts.SubjectToolReply, now, &reply)
			require.NoError(t, err)
			if tt.errText != "" {
				require.False(t, reply.OK)
				require.Contains(t, reply.Error, tt.errText)
				require.Empty(t, rec.got)
				return
			}
			require.True(t, reply.OK, reply.Error)
			require.Len(t, rec.got, 1, "recorded before the reply")
			var ev contracts.EvidenceV1
			_, err = kr.Open(reply.Evidence, contracts.SubjectEvidence, now, &ev)
			require.NoError(t, err)
			require.Equal(t, contracts.ToolListFields, ev.Tool)
			require.Equal(t, "shop-api", ev.Service)
			require.Len(t, ev.RawSHA256, 64)
			require.Contains(t, ev.Link, "/traces-explorer")
			for _, w := range tt.want {
				require.Contains(t, ev.Compact, w)
			}
		})
	}
}
