package investigator_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/services/investigator"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/scripted"

	"github.com/stretchr/testify/require"
)

func logger() *slog.Logger {
	if os.Getenv("AGENTK_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

func within[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("no %s within %s", what, d)
		var zero T
		return zero
	}
}

// pipeline runs the investigator on an embedded fabric with a sandbox-shaped
// tool server, and returns a function publishing an alert and a channel of reports.
func pipeline(t *testing.T, env map[string]string, scenario looptest.Scenario) (publish func(contracts.AlertV1), reports <-chan contracts.ReportV1, kr *envelope.Keyring) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: logger()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	now := func() time.Time { return time.Now().UTC() }

	sd, err := f.Deps(ctx, envelope.RoleSandbox, now, nil)
	require.NoError(t, err)
	sb := &looptest.Sandbox{Scenario: scenario, Now: now()}
	stop, err := sd.Bus.Serve(ctx, contracts.SubjectToolCall, "sandbox", func(ctx context.Context, e envelope.Envelope, _ map[string]string) (envelope.Envelope, error) {
		var call contracts.ToolCallV1
		if err := sd.Keyring.Verify(e, contracts.SubjectToolCall, envelope.RoleInvestigator, now()); err != nil {
			return envelope.Envelope{}, bus.Permanent(err)
		}
		if err := json.Unmarshal(e.Payload, &call); err != nil {
			return envelope.Envelope{}, bus.Permanent(err)
		}
		reply, err := sb.SignedReply(ctx, sd.Signer, now(), call)
		if err != nil {
			return envelope.Envelope{}, err
		}
		return sd.Signer.SealJSON(contracts.SubjectToolReply, reply, now(), 0)
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = stop() })

	d, err := f.Deps(ctx, envelope.RoleInvestigator, now, func(k string) string { return env[k] })
	require.NoError(t, err)
	ready := make(chan struct{})
	d.Ready = func() { close(ready) }
	d.Logger = logger()
	runErr := make(chan error, 1)
	go func() { runErr <- investigator.Run(ctx, d) }()
	select {
	case <-ready:
	case err := <-runErr:
		t.Fatalf("investigator stopped: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("investigator not ready")
	}

	adm, err := f.Admin(ctx)
	require.NoError(t, err)
	out := make(chan contracts.ReportV1, 8)
	r, err := adm.NewRouter(logger())
	require.NoError(t, err)
	r.Handle("test-reports", contracts.SubjectReport, func(_ context.Context, m bus.Message) ([]bus.Out, error) {
		var rep contracts.ReportV1
		if _, err := f.Keyring().Open(m.Data, contracts.SubjectReport, now(), &rep); err != nil {
			return nil, bus.Permanent(err)
		}
		out <- rep
		return nil, nil
	})
	rerr := make(chan error, 1)
	go func() { rerr <- r.Run(ctx) }()
	select {
	case <-r.Running():
	case err := <-rerr:
		t.Fatalf("report router: %v", err)
	}

	ing, err := f.Deps(ctx, envelope.RoleIngester, now, nil)
	require.NoError(t, err)
	publish = func(a contracts.AlertV1) {
		e, err := ing.Signer.SealJSON(contracts.SubjectAlert, a, now(), 0)
		require.NoError(t, err)
		require.NoError(t, ing.Bus.Publish(ctx, contracts.SubjectAlert, bus.Out{Envelope: e, MsgID: "alert." + a.IncidentID + "." + a.Status}, nil))
	}
	return publish, out, f.Keyring()
}

func alert(id string) contracts.AlertV1 {
	return contracts.AlertV1{IncidentID: id, Status: contracts.AlertFiring, Service: "shop-api", RuleID: "r1", AlertName: "error rate", StartsAt: time.Now().UTC().Add(-5 * time.Minute), BurnRate: 4}
}

func TestRulesOverTheFabric(t *testing.T) {
	t.Parallel()
	publish, reports, kr := pipeline(t, map[string]string{}, looptest.RetryStorm())
	skipped := alert("inc-test")
	skipped.Test = true
	publish(skipped)
	publish(alert("inc-1"))
	rep := within(t, reports, 30*time.Second, "report")
	require.Equal(t, "inc-1", rep.IncidentID, "the test alert produced no report")
	require.Equal(t, "rules", rep.Investigator)
	require.True(t, rep.Completed, rep.IncompleteReason)
	require.Equal(t, "retry_storm", rep.Claims[0].Class)
	for _, e := range rep.Evidence {
		var ev contracts.EvidenceV1
		_, err := kr.Open(e, contracts.SubjectEvidence, time.Now(), &ev)
		require.NoError(t, err)
	}
}

func TestPersonasOverTheFabric(t *testing.T) {
	t.Parallel()
	tests := []struct {
		persona   string
		opts      []scripted.Option
		class     string
		completed bool
	}{
		{scripted.Oracle, []scripted.Option{scripted.WithTruth("db_pool_exhaustion")}, "db_pool_exhaustion", true},
		{scripted.Liar, nil, "retry_storm", true},
		{scripted.Fabricator, nil, "bad_release", true},
		{scripted.Injected, nil, "bad_release", true},
		{scripted.Wrong, []scripted.Option{scripted.WithTruth("db_pool_exhaustion")}, "retry_storm", true},
		{scripted.Flaky, []scripted.Option{scripted.WithTruth("db_pool_exhaustion"), scripted.WithHang(3 * time.Second), scripted.WithRetryAfter(0)}, "db_pool_exhaustion", true},
	}
	for _, tc := range tests {
		t.Run(tc.persona, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(scripted.New(tc.persona, tc.opts...))
			t.Cleanup(srv.Close)
			publish, reports, _ := pipeline(t, map[string]string{
				"AGENTK_LLM_PROVIDER": "custom", "AGENTK_LLM_BASE_URL": srv.URL + "/v1", "AGENTK_LLM_MODEL": "scripted",
				"AGENTK_LLM_PERSONA": tc.persona, "AGENTK_LLM_TIMEOUT": "300ms",
			}, looptest.Injected())
			publish(alert("inc-" + tc.persona))
			rep := within(t, reports, 60*time.Second, "report")
			require.Equal(t, "persona:"+tc.persona, rep.Investigator)
			require.Equal(t, tc.completed, rep.Completed, rep.IncompleteReason)
			require.Equal(t, tc.class, rep.Claims[0].Class)
			require.Positive(t, rep.TokensIn)
			t.Logf("persona=%s tokens_in=%d tokens_out=%d total=%d iterations=%d tool_calls=%d", tc.persona, rep.TokensIn, rep.TokensOut, rep.TokensIn+rep.TokensOut, rep.Iterations, rep.ToolCalls)
		})
	}
}
