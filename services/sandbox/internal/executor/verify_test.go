package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/sandbox/fakesignoz"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// countingQuerier counts the queries that reached SigNoz.
type countingQuerier struct {
	n    atomic.Int64
	next Querier
}

func (c *countingQuerier) QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error) {
	c.n.Add(1)
	return c.next.QueryRange(ctx, req)
}

// TestDeployerVerificationCalls: the deployer may sign a tool call only for
// service_overview of the alert's own service, under a verify- id, over a
// range after the alert began, with the ingester-signed alert of its incident.
// Every refusal happens before SigNoz is asked anything.
func TestDeployerVerificationCalls(t *testing.T) {
	t.Parallel()
	ing, inv, dep, sbx, gate := signer(t), signer(t), signer(t), signer(t), signer(t)
	kr, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: ing.KeyID(), Role: envelope.RoleIngester},
		envelope.KeyEntry{KeyID: inv.KeyID(), Role: envelope.RoleInvestigator},
		envelope.KeyEntry{KeyID: dep.KeyID(), Role: envelope.RoleDeployer},
		envelope.KeyEntry{KeyID: gate.KeyID(), Role: envelope.RoleGate},
		envelope.KeyEntry{KeyID: sbx.KeyID(), Role: envelope.RoleSandbox})
	require.NoError(t, err)
	startsAt := time.Date(2026, 11, 4, 10, 10, 0, 0, time.UTC)
	now := startsAt.Add(40 * time.Minute)
	verified := now.Add(-5 * time.Minute)

	srv := httptest.NewServer(fakesignoz.New(nil, fakesignoz.Options{APIKey: "k"}))
	t.Cleanup(srv.Close)

	alertBy := func(s *envelope.Signer, incident string) json.RawMessage {
		env, err := s.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: incident, Service: "shop-api", StartsAt: startsAt}, startsAt, 0)
		require.NoError(t, err)
		return env.Marshal()
	}
	forged := func() json.RawMessage { // the ingester's envelope with the payload swapped
		env, err := envelope.Parse(alertBy(ing, "inc-1"))
		require.NoError(t, err)
		env.Payload, err = json.Marshal(contracts.AlertV1{IncidentID: "inc-1", Service: "shop-api", StartsAt: startsAt.Add(-6 * time.Hour)})
		require.NoError(t, err)
		return env.Marshal()
	}
	rng := func(svc string, from, to time.Time) string {
		return fmt.Sprintf(`{"service":%q,"from":%q,"to":%q}`, svc, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	type call struct {
		by       *envelope.Signer
		inv      string
		tool     string
		args     string
		alert    json.RawMessage
		incident string
	}
	good := call{by: dep, inv: "verify-action.apr-1", tool: contracts.ToolServiceOverview, args: rng("shop-api", verified, now), alert: alertBy(ing, "inc-1"), incident: "inc-1"}
	with := func(f func(*call)) call { c := good; f(&c); return c }
	tests := []struct {
		name    string
		call    call
		errText string
	}{
		{name: "recovery overview recorded", call: good},
		{name: "another tool", call: with(func(c *call) { c.tool, c.args = contracts.ToolErrorLogs, `{"service":"shop-api"}` }), errText: "may run only service_overview"},
		{name: "markers", call: with(func(c *call) { c.tool = contracts.ToolDeploymentMarkers }), errText: "may run only service_overview"},
		{name: "another service", call: with(func(c *call) { c.args = rng("shop-db", verified, now) }), errText: `only the alert's service "shop-api", not "shop-db"`},
		{name: "no alert", call: with(func(c *call) { c.alert = nil }), errText: "not ingester-signed"},
		{name: "alert signed by the deployer", call: with(func(c *call) { c.alert = alertBy(dep, "inc-1") }), errText: "not ingester-signed"},
		{name: "alert signed by the gate", call: with(func(c *call) { c.alert = alertBy(gate, "inc-1") }), errText: "not ingester-signed"},
		{name: "forged alert payload", call: with(func(c *call) { c.alert = forged() }), errText: "bad signature"},
		{name: "alert of another incident", call: with(func(c *call) { c.alert = alertBy(ing, "inc-2") }), errText: "carries the alert of"},
		{name: "not a verification id", call: with(func(c *call) { c.inv = "inv-1" }), errText: "must be verify-<action id>"},
		{name: "bare prefix", call: with(func(c *call) { c.inv = "verify-" }), errText: "must be verify-<action id>"},
		{name: "no explicit range", call: with(func(c *call) { c.args = `{"service":"shop-api"}` }), errText: "explicit from and to"},
		{name: "range before the alert", call: with(func(c *call) { c.args = rng("shop-api", startsAt.Add(-time.Hour), now) }), errText: "before the alert began"},
		{name: "range in the future", call: with(func(c *call) { c.args = rng("shop-api", verified, now.Add(time.Hour)) }), errText: "in the future"},
		{name: "investigator may not pose as verification", call: with(func(c *call) { c.by = inv }), errText: "are the deployer's recovery verifications"},
		{name: "gate may not call", call: with(func(c *call) { c.by = gate }), errText: "not a valid investigator-signed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env, err := tt.call.by.SealJSON(contracts.SubjectToolCall, contracts.ToolCallV1{CallID: "c1", InvestigationID: tt.call.inv,
				IncidentID: tt.call.incident, Tool: tt.call.tool, Arguments: json.RawMessage(tt.call.args), Alert: tt.call.alert}, now, 0)
			require.NoError(t, err)
			q := &countingQuerier{next: &signoz.Client{BaseURL: srv.URL, APIKey: "k", Auth: "header"}}
			rec := &fakeRecorder{}
			ex := &Executor{Keyring: kr, Signer: sbx, Query: q, Record: rec, Now: func() time.Time { return now },
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: tools.DefaultLimits(nil),
				Compact: compact.DefaultLimits, LinkBase: "http://localhost:8080", MaxCalls: 5}
			renv, err := ex.Handle(context.Background(), env.Marshal())
			require.NoError(t, err)
			var reply contracts.ToolReplyV1
			_, err = kr.Open(renv.Marshal(), contracts.SubjectToolReply, now, &reply)
			require.NoError(t, err)
			if tt.errText != "" {
				require.False(t, reply.OK)
				require.Contains(t, reply.Error, tt.errText)
				require.Empty(t, rec.got)
				require.Zero(t, q.n.Load(), "refused before SigNoz was asked")
				return
			}
			require.True(t, reply.OK, reply.Error)
			require.Len(t, rec.got, 1)
			var ev contracts.EvidenceV1
			_, err = kr.Open(reply.Evidence, contracts.SubjectEvidence, now, &ev)
			require.NoError(t, err)
			require.Equal(t, "verify-action.apr-1", ev.InvestigationID)
			require.Equal(t, "shop-api", ev.Service)
			require.Equal(t, verified, ev.From)
			require.Equal(t, now, ev.To)
			require.NotNil(t, ev.Facts.RequestCount)
		})
	}
}
