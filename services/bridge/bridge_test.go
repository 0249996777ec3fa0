package bridge_test

import (
	"context"
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
	"agentk/platform/freeport"
	"agentk/platform/health"
	"agentk/platform/service"
	"agentk/services/bridge"
	"agentk/services/bridge/client"
	"agentk/services/bridge/fakeslack"
	"agentk/services/bridge/internal/testkit"
)

const (
	botToken = "xoxb-run-test"
	secret   = "run-test-signing-secret-000000"
	bobToken = "bob-console-token-0123456789ab"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	return freeport.Addr(t)
}

type running struct {
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, f *fabric.Fabric, now func() time.Time, env map[string]string, opts ...func(*service.Deps)) running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := f.Deps(ctx, envelope.RoleBridge, now, func(k string) string { return env[k] })
	require.NoError(t, err)
	d.Logger = slog.New(slog.DiscardHandler)
	for _, o := range opts {
		o(&d)
	}
	ready := make(chan struct{})
	d.Ready = func() { close(ready) }
	done := make(chan error, 1)
	go func() { done <- bridge.Run(ctx, d) }()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("bridge stopped before ready: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("bridge not ready")
	}
	return running{cancel: cancel, done: done}
}

func (r running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("bridge did not stop")
	}
}

// TestRunOverTheFabric: a gate-signed decision on the bus is posted to Slack,
// an approver's signed click yields one bridge-signed approval on the bus, and
// after a restart the answered decision refuses a second answer.
func TestRunOverTheFabric(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })

	slack := fakeslack.New(botToken)
	defer slack.Close()
	addr := freeAddr(t)
	env := map[string]string{
		"AGENTK_BRIDGE_ADDR": addr, "AGENTK_SLACK_API_URL": slack.APIURL(), "AGENTK_SLACK_BOT_TOKEN": botToken,
		"AGENTK_SLACK_SIGNING_SECRET": secret, "AGENTK_SLACK_CHANNEL": "C0INCIDENTS",
		"AGENTK_SLACK_RESPONSE_URL_PREFIX": slack.ResponseURLPrefix(),
		"AGENTK_APPROVERS":                 "slack:U0ALICE=alice", "AGENTK_CONSOLE_TOKENS": "bob=" + bobToken,
	}
	now := service.Since(testkit.Epoch) // a replay clock, far from the wall clock

	// The deployer's side: collect approvals.
	approvals := collectApprovals(ctx, t, f)

	b := start(t, f, now, env)

	_, sealed := publishDecision(ctx, t, f, "dec-run-1", now())

	msg, err := slack.WaitMessage(ctx, func(m fakeslack.Message) bool { return strings.Contains(m.Text, "dec-run-1") })
	require.NoError(t, err)
	status, err := slack.Click(ctx, "http://"+addr+"/slack/interactions", secret, now(), msg, "U0ALICE", fakeslack.Approve)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)

	select {
	case m := <-approvals:
		var a contracts.ApprovalV1
		_, err := f.Keyring().Open(m.Data, contracts.SubjectApproval, now(), &a)
		require.NoError(t, err)
		require.Equal(t, "dec-run-1", a.DecisionID)
		require.Equal(t, sealed.Digest(), a.DecisionDigest)
		require.Equal(t, "alice", a.Approver)
		require.Equal(t, contracts.AnswerApprove, a.Answer)
	case <-ctx.Done():
		t.Fatal("no approval on the bus")
	}

	// Restart: the answer is in KV, so a second answer is refused.
	b.stop(t)
	b = start(t, f, now, env)
	defer b.stop(t)
	_, err = client.Answer(ctx, "http://"+addr, bobToken, "dec-run-1", "deny")
	var refused *client.RefusedError
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusConflict, refused.Status)
	require.Contains(t, refused.Reason, "already answered: approve by alice via slack")
	select {
	case m := <-approvals:
		t.Fatalf("a second approval was published: %s", m.Data)
	default:
	}
}

func slackEnv(t *testing.T, slack *fakeslack.Server, token string) map[string]string {
	t.Helper()
	return map[string]string{
		"AGENTK_BRIDGE_ADDR": freeAddr(t), "AGENTK_SLACK_API_URL": slack.APIURL(), "AGENTK_SLACK_BOT_TOKEN": token,
		"AGENTK_SLACK_SIGNING_SECRET": secret, "AGENTK_SLACK_CHANNEL": "C0INCIDENTS",
		"AGENTK_SLACK_RESPONSE_URL_PREFIX": slack.ResponseURLPrefix(),
		"AGENTK_APPROVERS":                 "slack:U0ALICE=alice", "AGENTK_CONSOLE_TOKENS": "bob=" + bobToken,
	}
}

// TestReadinessSaysSlackRefusesTheToken: with a bot token Slack does not
// accept, the bridge's readiness goes not-ready and names Slack's answer;
// with the right one it is ready.
func TestReadinessSaysSlackRefusesTheToken(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	slack := fakeslack.New(botToken)
	defer slack.Close()

	for _, tc := range []struct {
		name, token string
		ready       bool
	}{
		{"token refused", "xoxb-revoked", false},
		{"token accepted", botToken, true},
	} {
		check := health.New("bridge", nil)
		reported := make(chan error, 16)
		b := start(t, f, service.Since(testkit.Epoch), slackEnv(t, slack, tc.token), func(d *service.Deps) {
			d.Dependency = func(name string, err error) {
				check.Dependency(name, err)
				if name == bridge.DependencySlack {
					reported <- err
				}
			}
		})
		check.Ready() // start returned: the bridge called Ready
		select {
		case err := <-reported:
			if tc.ready {
				require.NoError(t, err, tc.name)
			} else {
				require.ErrorContains(t, err, "invalid_auth", tc.name)
			}
		case <-ctx.Done():
			t.Fatal("auth.test never reported")
		}
		st := check.Status()
		require.Equal(t, tc.ready, st.Ready, tc.name)
		if !tc.ready {
			require.Contains(t, st.Failing[bridge.DependencySlack], "auth.test")
		}
		b.stop(t)
	}
}

// TestOutcomeOverTheFabric: after an approval, the deployer's dry-run action
// on the bus is posted in the decision's Slack thread, and the message
// header no longer says it awaits approval.
func TestOutcomeOverTheFabric(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	slack := fakeslack.New(botToken)
	defer slack.Close()
	env := slackEnv(t, slack, botToken)
	now := service.Since(testkit.Epoch)
	b := start(t, f, now, env)
	defer b.stop(t)

	dec, _ := publishDecision(ctx, t, f, "dec-out-1", now())
	msg, err := slack.WaitMessage(ctx, func(m fakeslack.Message) bool { return strings.Contains(m.Text, "dec-out-1") })
	require.NoError(t, err)
	_, err = client.Answer(ctx, "http://"+env["AGENTK_BRIDGE_ADDR"], bobToken, "dec-out-1", "approve")
	require.NoError(t, err)

	dep, err := f.Connect(ctx, envelope.RoleDeployer)
	require.NoError(t, err)
	act := testkit.Action("act-out-1", dec, contracts.OutcomeDryRun, nil, now())
	aenv, err := f.Signer(envelope.RoleDeployer).SealJSON(contracts.SubjectAction, act, now(), 0)
	require.NoError(t, err)
	require.NoError(t, dep.Publish(ctx, contracts.SubjectAction, bus.Out{Envelope: aenv, MsgID: act.ActionID}, nil))

	reply, err := slack.WaitMessage(ctx, func(m fakeslack.Message) bool { return m.ThreadTS == msg.TS })
	require.NoError(t, err)
	require.Contains(t, reply.Text, "Dry run")
	parent, err := slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
		return m.TS == msg.TS && strings.Contains(string(m.Blocks), "Dry run: rollback planned")
	})
	require.NoError(t, err)
	require.NotContains(t, string(parent.Blocks), "awaits approval")
	require.Contains(t, string(parent.Blocks), "Approved* by bob via cli")
}

// TestCheckSlack is what `agentk config` can call: auth.test, once.
func TestCheckSlack(t *testing.T) {
	t.Parallel()
	slack := fakeslack.New(botToken)
	defer slack.Close()
	env := func(token string) func(string) string {
		e := slackEnv(t, slack, token)
		return func(k string) string { return e[k] }
	}
	configured, err := bridge.CheckSlack(t.Context(), env(botToken))
	require.NoError(t, err)
	require.True(t, configured)
	configured, err = bridge.CheckSlack(t.Context(), env("xoxb-revoked"))
	require.ErrorContains(t, err, "invalid_auth")
	require.True(t, configured)
	noSlack := slackEnv(t, slack, botToken)
	delete(noSlack, "AGENTK_SLACK_BOT_TOKEN")
	delete(noSlack, "AGENTK_SLACK_SIGNING_SECRET")
	delete(noSlack, "AGENTK_APPROVERS")
	configured, err = bridge.CheckSlack(t.Context(), func(k string) string { return noSlack[k] })
	require.NoError(t, err)
	require.False(t, configured, "no bot token: Slack is not configured, not ok")
}

// TestReadinessSaysSlackRefusesPosts: Slack takes the token but refuses the
// post (the app left the channel): readiness names the refused post, and a
// passing auth.test does not hide it.
func TestReadinessSaysSlackRefusesPosts(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	slack := fakeslack.New(botToken)
	defer slack.Close()
	slack.Refuse("not_in_channel")
	check := health.New("bridge", nil)
	posts := make(chan error, 16)
	now := service.Since(testkit.Epoch)
	b := start(t, f, now, slackEnv(t, slack, botToken), func(d *service.Deps) {
		d.Dependency = func(name string, err error) {
			check.Dependency(name, err)
			if name == bridge.DependencySlackPosts {
				posts <- err
			}
		}
	})
	defer b.stop(t)
	check.Ready()
	publishDecision(ctx, t, f, "dec-refused-1", now())
	select {
	case err := <-posts:
		require.ErrorContains(t, err, "not_in_channel")
	case <-ctx.Done():
		t.Fatal("the refused post was never reported")
	}
	st := check.Status()
	require.False(t, st.Ready)
	require.Contains(t, st.Failing[bridge.DependencySlackPosts], "chat.postMessage: not_in_channel")
}

// TestADecisionIsPostedOnceSlackTakesIt: Slack refuses the post for longer
// than the bus's MaxDeliver deliveries (here 1, of one attempt each), then
// takes it. The decision
// is retried until posted (bus.UntilAnswered), never dead-lettered with its
// message unposted, as a store without a leader once left a posted
// message's ts unrecorded (make test-cluster).
func TestADecisionIsPostedOnceSlackTakesIt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler),
		Bus: bus.Config{MaxDeliver: 1, Retries: -1}}) // one delivery, one attempt: no retry inside it
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	slack := fakeslack.New(botToken)
	defer slack.Close()
	slack.Refuse("service_unavailable")
	posts := make(chan error, 64)
	now := service.Since(testkit.Epoch)
	b := start(t, f, now, slackEnv(t, slack, botToken), func(d *service.Deps) {
		d.Dependency = func(name string, err error) {
			if name == bridge.DependencySlackPosts && err != nil {
				posts <- err
			}
		}
	})
	defer b.stop(t)
	publishDecision(ctx, t, f, "dec-later-1", now())
	for range 2 { // the first delivery and its redelivery were both refused
		select {
		case err := <-posts:
			require.ErrorContains(t, err, "service_unavailable")
		case <-ctx.Done():
			t.Fatal("the refused post was never reported twice")
		}
	}
	slack.Refuse("")
	_, err = slack.WaitMessage(ctx, func(m fakeslack.Message) bool { return strings.Contains(m.Text, "dec-later-1") })
	require.NoError(t, err, "the decision was posted once Slack took it")
}
