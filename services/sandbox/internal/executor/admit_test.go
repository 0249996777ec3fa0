package executor

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// TestAdmit walks admit's refusals, each once, and what it admits: the
// verdict, the reply's words, the log line and what an admitted call
// carries on.
func TestAdmit(t *testing.T) {
	t.Parallel()
	ing, inv, dep, gate := signer(t), signer(t), signer(t), signer(t)
	kr, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: ing.KeyID(), Role: envelope.RoleIngester},
		envelope.KeyEntry{KeyID: inv.KeyID(), Role: envelope.RoleInvestigator},
		envelope.KeyEntry{KeyID: dep.KeyID(), Role: envelope.RoleDeployer},
		envelope.KeyEntry{KeyID: gate.KeyID(), Role: envelope.RoleGate})
	require.NoError(t, err)
	startsAt := time.Date(2026, 11, 4, 10, 10, 0, 0, time.UTC)
	now := startsAt.Add(40 * time.Minute)
	alertBy := func(s *envelope.Signer, incident string) json.RawMessage {
		env, err := s.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: incident, Service: "shop-api", StartsAt: startsAt}, startsAt, 0)
		require.NoError(t, err)
		return env.Marshal()
	}
	type call struct {
		by             *envelope.Signer
		inv, tool, arg string
		alert          json.RawMessage
	}
	sealed := func(c call) []byte {
		env, err := c.by.SealJSON(contracts.SubjectToolCall, contracts.ToolCallV1{CallID: "c1", InvestigationID: c.inv, IncidentID: "inc-1",
			Tool: c.tool, Arguments: json.RawMessage(c.arg), Alert: c.alert}, now, 0)
		require.NoError(t, err)
		return env.Marshal()
	}
	good := call{by: inv, inv: "inv-1", tool: contracts.ToolDeploymentMarkers, arg: `{"service":"shop-api"}`, alert: alertBy(ing, "inc-1")}
	with := func(f func(*call)) []byte { c := good; f(&c); return sealed(c) }
	recovery := fmt.Sprintf(`{"service":"shop-api","from":%q,"to":%q}`, now.Add(-5*time.Minute).Format(time.RFC3339), now.Format(time.RFC3339))
	tests := []struct {
		name    string
		data    []byte
		role    string // the verified caller; empty when the call did not verify
		refusal string // a substring of the reply's error; empty: admitted
		level   slog.Level
		logMsg  string
		tool    string // the validated tool of an admitted call
	}{
		{name: "investigator call", data: sealed(good), role: envelope.RoleInvestigator, tool: contracts.ToolDeploymentMarkers},
		{name: "list_fields is admitted for fieldtool to validate", data: with(func(c *call) { c.tool, c.arg = contracts.ToolListFields, `{}` }), role: envelope.RoleInvestigator},
		{name: "deployer recovery verification", data: with(func(c *call) { c.by, c.inv, c.tool, c.arg = dep, "verify-a1", contracts.ToolServiceOverview, recovery }), role: envelope.RoleDeployer, tool: contracts.ToolServiceOverview},
		{name: "not an envelope", data: []byte("{"), refusal: "not a valid investigator-signed tool call", level: slog.LevelWarn, logMsg: "tool call rejected"},
		{name: "signed by a role that may not call", data: with(func(c *call) { c.by = gate }), refusal: "not a valid investigator-signed tool call", level: slog.LevelWarn, logMsg: "tool call rejected"},
		{name: "caller may not make the call", data: with(func(c *call) { c.inv = "verify-a1" }), role: envelope.RoleInvestigator, refusal: "deployer's recovery verifications", level: slog.LevelWarn, logMsg: "tool call refused for its caller"},
		{name: "alert not the ingester's", data: with(func(c *call) { c.alert = alertBy(inv, "inc-1") }), role: envelope.RoleInvestigator, refusal: "not ingester-signed", level: slog.LevelWarn, logMsg: "alert in tool call rejected"},
		{name: "alert of another incident", data: with(func(c *call) { c.alert = alertBy(ing, "inc-2") }), role: envelope.RoleInvestigator, refusal: `carries the alert of "inc-2"`},
		{name: "no investigation id", data: with(func(c *call) { c.inv = "" }), role: envelope.RoleInvestigator, refusal: "carries the alert of"},
		{name: "arguments out of bounds", data: with(func(c *call) { c.arg = `{"service":"shop-api","limit":500}` }), role: envelope.RoleInvestigator, refusal: "limit", level: slog.LevelInfo, logMsg: "tool call refused"},
		{name: "unknown tool", data: with(func(c *call) { c.tool = "drop_tables" }), role: envelope.RoleInvestigator, refusal: "unknown tool", level: slog.LevelInfo, logMsg: "tool call refused"},
		{name: "recovery verification of another service", data: with(func(c *call) {
			c.by, c.inv, c.tool, c.arg = dep, "verify-a1", contracts.ToolServiceOverview, `{"service":"shop-db","from":"2026-11-04T10:45:00Z","to":"2026-11-04T10:50:00Z"}`
		}), role: envelope.RoleDeployer, refusal: `only the alert's service "shop-api"`, level: slog.LevelWarn, logMsg: "recovery verification refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env, perr := envelope.Parse(tt.data)
			a := admit(kr, tools.DefaultLimits(nil), env, perr, now)
			require.Equal(t, tt.role, a.role)
			if tt.refusal == "" {
				require.Empty(t, a.refusal)
				require.Equal(t, "inc-1", a.alert.IncidentID, "the verified alert travels with the admission")
				require.Equal(t, tt.tool, a.tool.Tool)
				return
			}
			require.Contains(t, a.refusal, tt.refusal)
			require.Equal(t, tt.logMsg, a.logMsg)
			require.Equal(t, tt.level, a.logLevel)
			if tt.logMsg != "" {
				require.Error(t, a.logErr)
			}
		})
	}
}
