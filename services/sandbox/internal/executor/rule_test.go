package executor

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
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

type failingRules struct{ err error }

func (f failingRules) Rule(context.Context, string) (signoz.RuleResult, error) {
	return signoz.RuleResult{}, f.err
}

// TestOverviewReadsTheAlertRule: a service_overview reads the rule the
// signed alert names and its series moves the onset earlier; a rule that
// cannot be read never fails the call, and the evidence says why.
func TestOverviewReadsTheAlertRule(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load(filepath.Join("..", "..", "..", "..", "e2e", "incidents-rule", "rule-error-logs-release-ledger"))
	require.NoError(t, err)
	srv := httptest.NewServer(fakesignoz.New(inc, fakesignoz.Options{APIKey: "k"}))
	t.Cleanup(srv.Close)
	client := &signoz.Client{BaseURL: srv.URL, APIKey: "k", HTTP: srv.Client()}
	ing, inv, sbx := signer(t), signer(t), signer(t)
	kr, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: ing.KeyID(), Role: envelope.RoleIngester},
		envelope.KeyEntry{KeyID: inv.KeyID(), Role: envelope.RoleInvestigator},
		envelope.KeyEntry{KeyID: sbx.KeyID(), Role: envelope.RoleSandbox})
	require.NoError(t, err)
	startsAt, now := time.Date(2026, 10, 21, 7, 12, 0, 0, time.UTC), inc.Meta.Now
	const ruleID = "0192f7b2-0e44-7a10-b6d3-5f2a9c81e004"
	call := func(labels map[string]string, generator string) []byte {
		a, err := ing.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-1", Service: "ledger-writer", StartsAt: startsAt,
			Labels: labels, Links: contracts.AlertLinks{Generator: generator}}, now, 0)
		require.NoError(t, err)
		env, err := inv.SealJSON(contracts.SubjectToolCall, contracts.ToolCallV1{CallID: "c1", InvestigationID: "inv-1", IncidentID: "inc-1",
			Tool: contracts.ToolServiceOverview, Arguments: json.RawMessage(`{"service":"ledger-writer"}`), Alert: a.Marshal()}, now, 0)
		require.NoError(t, err)
		return env.Marshal()
	}
	tests := []struct {
		name      string
		rules     RuleReader
		labels    map[string]string
		generator string
		placed    bool
		unread    string
		noRule    bool
	}{
		{name: "the rule places the onset", rules: client, labels: map[string]string{"ruleId": ruleID}, placed: true},
		{name: "ruleId from the generatorURL", rules: client, generator: "https://signoz.ops.example/alerts/edit?ruleId=" + ruleID, placed: true},
		{name: "no rule id", rules: client, unread: "the alert names no rule (no ruleId label)"},
		{name: "SigNoz has no such rule", rules: client, labels: map[string]string{"ruleId": "404-me"}, unread: "SigNoz has no rule 404-me (HTTP 404)"},
		{name: "SigNoz unavailable for the rule", rules: failingRules{err: signoz.ErrUnavailable}, labels: map[string]string{"ruleId": ruleID},
			unread: "rule " + ruleID + " could not be read: signoz: unavailable"},
		{name: "no rule reader", labels: map[string]string{"ruleId": ruleID}, noRule: true},
	}
	var digests []string
	for _, tt := range tests {
		rec := &fakeRecorder{}
		ex := &Executor{Keyring: kr, Signer: sbx, Query: client, Record: rec, Now: func() time.Time { return now },
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: tools.DefaultLimits(nil),
			Compact: compact.DefaultLimits, LinkBase: "http://localhost:8080", MaxCalls: 5, Rules: tt.rules}
		env, err := ex.Handle(context.Background(), call(tt.labels, tt.generator))
		require.NoError(t, err, tt.name)
		var reply contracts.ToolReplyV1
		_, err = kr.Open(env.Marshal(), contracts.SubjectToolReply, now, &reply)
		require.NoError(t, err, tt.name)
		require.True(t, reply.OK, "%s: %s", tt.name, reply.Error)
		var ev contracts.EvidenceV1
		_, err = kr.Open(reply.Evidence, contracts.SubjectEvidence, now, &ev)
		require.NoError(t, err, tt.name)
		require.NotNil(t, ev.Facts.Onset, tt.name)
		digests = append(digests, ev.RawSHA256)
		if tt.noRule {
			require.Nil(t, ev.Facts.AlertRule, tt.name)
			continue
		}
		require.NotNil(t, ev.Facts.AlertRule, tt.name)
		require.Equal(t, tt.placed, ev.Facts.AlertRule.PlacedOnset, "%s: %s", tt.name, ev.Compact)
		if tt.placed {
			require.Equal(t, time.Date(2026, 10, 21, 6, 41, 0, 0, time.UTC), *ev.Facts.Onset, tt.name)
			require.Contains(t, ev.Facts.OnsetRule, `rule "ledger-writer error logs": A = count() where "service.name = 'ledger-writer' AND severity_text = 'ERROR'"`)
			continue
		}
		require.Empty(t, ev.Facts.OnsetRule, tt.name)
		require.Contains(t, ev.Facts.AlertRule.Unread, tt.unread, tt.name)
		require.Contains(t, ev.Compact, tt.unread, tt.name)
		require.True(t, ev.Facts.Onset.After(time.Date(2026, 10, 21, 6, 49, 0, 0, time.UTC)), "%s: the errors' onset", tt.name)
	}
	require.NotEqual(t, digests[0], digests[len(digests)-1], "the rule's bodies are hashed into the evidence")
}
