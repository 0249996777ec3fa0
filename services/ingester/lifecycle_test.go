package ingester

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/topology"
	"agentk/services/ingester/internal/httpport"
	"agentk/services/ingester/internal/incidents"

	"github.com/stretchr/testify/require"
)

func record(t *testing.T, r *running, id string) incidents.Record {
	t.Helper()
	ctx := context.Background()
	kv, err := r.deps.Bus.KeyValue(ctx, topology.BucketIncidents)
	require.NoError(t, err)
	e, err := kv.Get(ctx, id)
	require.NoError(t, err, id)
	var rec incidents.Record
	require.NoError(t, json.Unmarshal(e.Value(), &rec))
	return rec
}

func filed(t *testing.T, r *running, body []byte) httpport.Filed {
	t.Helper()
	code, b := post(t, r.url, body)
	require.Equal(t, 200, code, string(b))
	var resp httpport.Response
	require.NoError(t, json.Unmarshal(b, &resp))
	return resp.Alerts[0]
}

// TestLifecycleOverTheBus runs issue 19's lifecycle defects against a real
// ingester on embedded NATS: a flapping re-fire after a resolve opens a new
// incident and publishes it (it was attached to the resolved one, and the
// rule stayed wedged), and the gate's decision frees the slot of the decided
// incident so a queued one is released at once.
func TestLifecycleOverTheBus(t *testing.T) {
	f := embedded(t)
	r := start(t, f, map[string]string{"AGENTK_INGEST_MAX_INVESTIGATIONS": "1"}, nil)
	defer r.stop()
	startsAt := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Second).Format(time.RFC3339)
	firing := hostile(nil, startsAt, nil)
	var b map[string]any
	require.NoError(t, json.Unmarshal(firing, &b))
	b["alerts"].([]any)[0].(map[string]any)["status"] = "resolved"
	b["alerts"].([]any)[0].(map[string]any)["endsAt"] = time.Now().UTC().Format(time.RFC3339)
	resolvedBody, err := json.Marshal(b)
	require.NoError(t, err)

	first := filed(t, r, firing)
	require.Equal(t, "opened", first.Outcome)
	require.Equal(t, "resolved", filed(t, r, resolvedBody).Outcome)
	again := filed(t, r, firing)
	require.Equal(t, "opened", again.Outcome, "a flap is a new episode")
	require.Equal(t, first.IncidentID+"-r2", again.IncidentID)
	alerts := storedAlerts(t, f)
	require.Len(t, alerts, 3, "open, resolve, and the re-fire published for a new investigation")
	require.Equal(t, again.IncidentID, alerts[2].IncidentID)

	// With one slot taken by the re-fire, another service queues.
	queued := filed(t, r, hostile(map[string]string{"service.name": "payments", "ruleId": "r2"}, startsAt, nil))
	require.Equal(t, "queued", queued.Outcome)

	// The gate decides the re-fire's investigation: the slot is released.
	ctx := context.Background()
	gate, err := f.Connect(ctx, envelope.RoleGate)
	require.NoError(t, err)
	defer func() { _ = gate.Close() }()
	d := contracts.DecisionV1{DecisionID: "decision.1", IncidentID: again.IncidentID, Verdict: contracts.VerdictDeny}
	env, err := f.Signer(envelope.RoleGate).SealJSON(contracts.SubjectDecision, d, time.Now(), time.Minute)
	require.NoError(t, err)
	require.NoError(t, gate.Publish(ctx, contracts.SubjectDecision, bus.Out{Envelope: env, MsgID: d.DecisionID}, nil))
	require.Eventually(t, func() bool { return record(t, r, queued.IncidentID).State == incidents.StateInvestigating },
		20*time.Second, 20*time.Millisecond, "the queued incident is released by the decision, not by a lease")
	require.Equal(t, incidents.StateDecided, record(t, r, again.IncidentID).State)
	require.Len(t, storedAlerts(t, f), 4)
}
