package bridge_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/bridge/fakeslack"
	"agentk/services/bridge/internal/testkit"
)

// TestResolveRewritesTheMessage: an incident's alert resolves while its
// decision awaits approval. The bridge rewrites the posted message
// (chat.update) to say when the alert resolved, with "Approve anyway (alert
// resolved)" in place of the approve button, both when the resolve lands
// while it runs (the watch) and when it landed while it was down (the sweep
// at start). A click on the old approve button is refused and publishes
// nothing; a click on the new one publishes an approval that carries the
// resolve time as the human's re-confirmation.
func TestResolveRewritesTheMessage(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	slack := fakeslack.New(botToken)
	defer slack.Close()
	env := slackEnv(t, slack, botToken)
	interactions := "http://" + env["AGENTK_BRIDGE_ADDR"] + "/slack/interactions"
	now := service.Since(testkit.Epoch)
	approvals := collectApprovals(ctx, t, f)

	ingester, err := f.Connect(ctx, envelope.RoleIngester)
	require.NoError(t, err)
	incidents, err := ingester.KeyValue(ctx, topology.BucketIncidents)
	require.NoError(t, err)
	resolve := func(incidentID string, at time.Time) {
		b, err := json.Marshal(map[string]any{"incident_id": incidentID, "state": "resolved", "resolved_at": at})
		require.NoError(t, err)
		_, err = incidents.Put(ctx, incidentID, b)
		require.NoError(t, err)
	}
	post := func(id string) fakeslack.Message {
		publishDecision(ctx, t, f, id, now())
		msg, err := slack.WaitMessage(ctx, func(m fakeslack.Message) bool { return strings.Contains(m.Text, id) })
		require.NoError(t, err)
		return msg
	}
	rewritten := func(msg fakeslack.Message) fakeslack.Message {
		m, err := slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
			return m.TS == msg.TS && strings.Contains(string(m.Blocks), "The alert resolved at")
		})
		require.NoError(t, err)
		require.Positive(t, m.Updates, "rewritten with chat.update")
		require.Contains(t, m.Text, "needs re-confirmation")
		var ids []string
		for _, b := range m.Buttons() {
			ids = append(ids, b.ActionID)
		}
		require.Contains(t, ids, fakeslack.ApproveResolved)
		require.NotContains(t, ids, fakeslack.Approve, "the plain approve button is gone")
		return m
	}

	// While the bridge runs: the watch rewrites.
	b := start(t, f, now, env)
	live := post("dec-resolve-live")
	// The message's ts is on the record before the resolve lands, so it
	// is the watch that rewrites it (not the check right after posting).
	recordedTS(ctx, t, f, "dec-resolve-live")
	liveAt := now().Add(time.Minute).Truncate(time.Millisecond)
	resolve("inc-dec-resolve-live", liveAt)
	t0 := time.Now()
	rewritten(live)
	t.Logf("live rewrite after %s", time.Since(t0))

	// While it is down: the restarted bridge rewrites.
	late := post("dec-resolve-late")
	b.stop(t)
	lateAt := now().Add(2 * time.Minute).Truncate(time.Millisecond)
	resolve("inc-dec-resolve-late", lateAt)
	b = start(t, f, now, env)
	defer b.stop(t)
	lateNow := rewritten(late)

	// The old button, clicked on the message as first posted: refused.
	status, err := slack.Click(ctx, interactions, secret, now(), late, "U0ALICE", fakeslack.Approve)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	told, err := slack.WaitResponse(ctx, func(r fakeslack.Response) bool { return r.MessageTS == late.TS })
	require.NoError(t, err)
	require.Contains(t, told.Text, "resolved")
	select {
	case m := <-approvals:
		t.Fatalf("the old button published an approval: %s", m.Data)
	case <-time.After(time.Second):
	}

	// The new one: an approval re-confirmed after the resolve.
	status, err = slack.Click(ctx, interactions, secret, now(), lateNow, "U0ALICE", fakeslack.ApproveResolved)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	select {
	case m := <-approvals:
		var a contracts.ApprovalV1
		_, err := f.Keyring().Open(m.Data, contracts.SubjectApproval, now(), &a)
		require.NoError(t, err)
		require.Equal(t, "dec-resolve-late", a.DecisionID)
		require.True(t, a.ResolvedConfirmedAt.Equal(lateAt), "confirmed %s, resolved %s", a.ResolvedConfirmedAt, lateAt)
	case <-ctx.Done():
		t.Fatal("no approval after Approve anyway")
	}
}

// collectApprovals consumes agentk.approval.v1 as the deployer would.
func collectApprovals(ctx context.Context, t *testing.T, f *fabric.Fabric) <-chan bus.Message {
	t.Helper()
	approvals := make(chan bus.Message, 4)
	dep, err := f.Connect(ctx, envelope.RoleDeployer)
	require.NoError(t, err)
	router, err := dep.NewRouter(slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	router.Handle("bridge-test-deployer", contracts.SubjectApproval, func(_ context.Context, m bus.Message) ([]bus.Out, error) {
		approvals <- m
		return nil, nil
	})
	rctx, rcancel := context.WithCancel(ctx)
	t.Cleanup(rcancel)
	rerr := make(chan error, 1)
	go func() { rerr <- router.Run(rctx) }()
	select {
	case <-router.Running():
	case err := <-rerr:
		t.Fatal(err)
	}
	return approvals
}

// recordedTS waits until the bridge's record of decisionID names its Slack
// message.
func recordedTS(ctx context.Context, t *testing.T, f *fabric.Fabric, decisionID string) {
	t.Helper()
	admin, err := f.Admin(ctx)
	require.NoError(t, err)
	defer func() { _ = admin.Close() }()
	kv, err := admin.KeyValue(ctx, topology.BucketDecisions)
	require.NoError(t, err)
	w, err := kv.Watch(ctx, decisionID)
	require.NoError(t, err)
	defer func() { _ = w.Stop() }()
	for e := range w.Updates() {
		var r struct {
			SlackTS string `json:"slack_ts"`
		}
		if e != nil && json.Unmarshal(e.Value(), &r) == nil && r.SlackTS != "" {
			return
		}
	}
	t.Fatal("the record never named its slack message")
}

// publishDecision publishes a gate-signed decision id as the gate would.
func publishDecision(ctx context.Context, t *testing.T, f *fabric.Fabric, id string, now time.Time) (contracts.DecisionV1, envelope.Envelope) {
	t.Helper()
	gate, err := f.Connect(ctx, envelope.RoleGate)
	require.NoError(t, err)
	dec := testkit.Decision(id, now)
	sealed, err := f.Signer(envelope.RoleGate).SealJSON(contracts.SubjectDecision, dec, now, 15*time.Minute)
	require.NoError(t, err)
	require.NoError(t, gate.Publish(ctx, contracts.SubjectDecision, bus.Out{Envelope: sealed, MsgID: dec.DecisionID}, nil))
	return dec, sealed
}
