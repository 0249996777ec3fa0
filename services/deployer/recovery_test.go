package deployer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/platform/fabric"
	"agentk/services/deployer/internal/recovery"
	"agentk/services/deployer/internal/rollback"
	"agentk/services/sandbox"
	"agentk/services/sandbox/fakesignoz"

	"github.com/stretchr/testify/require"
)

// recoveryIncident is shop-api serving one request every 10 s for two hours
// up to now, half of them failing from 5 minutes before the alert until
// fixedAt (never when fixedAt is zero), and no traffic at all after quietAt
// (when set).
func recoveryIncident(now, startsAt, fixedAt, quietAt time.Time) *incident.Incident {
	inc := &incident.Incident{Meta: incident.Meta{ID: "recovery", Service: "shop-api"}}
	i := 0
	for ts := now.Add(-2 * time.Hour); ts.Before(now); ts = ts.Add(10 * time.Second) {
		i++
		if !quietAt.IsZero() && !ts.Before(quietAt) {
			break
		}
		failing := !ts.Before(startsAt.Add(-5*time.Minute)) && (fixedAt.IsZero() || ts.Before(fixedAt)) && i%2 == 0
		s := incident.Span{
			Timestamp: ts, TraceID: fmt.Sprintf("%032x", i), SpanID: fmt.Sprintf("%016x", i), Name: "GET /ask", Kind: 2,
			DurationNano: int64(20 * time.Millisecond), Resource: map[string]string{"service.name": "shop-api", "service.version": "v1"},
			Attributes: map[string]json.RawMessage{"http.request.method": json.RawMessage(`"GET"`), "http.response.status_code": json.RawMessage(`200`)},
		}
		if failing {
			s.HasError, s.StatusCode, s.StatusMessage = true, 2, "boom"
			s.Attributes["http.response.status_code"] = json.RawMessage(`500`)
		}
		inc.Spans = append(inc.Spans, s)
	}
	return inc
}

// TestSandboxRecoveryCheckOverTheFabric runs the deployer's recovery check as
// production does: deployer-signed service_overview through the real sandbox
// over the embedded fabric (the deployer's own NATS permissions), the sandbox
// asking a fake SigNoz serving telemetry where the error rate is back to
// baseline after the rollback, or is not, or has no traffic to judge.
func TestSandboxRecoveryCheckOverTheFabric(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)
	startsAt := now.Add(-30 * time.Minute)
	since := now.Add(-5 * time.Minute) // container verified on the target
	clock := func() time.Time { return now }
	cases := []struct {
		name      string
		inc       *incident.Incident
		recovered bool
		detail    string
	}{
		{name: "error rate back to baseline after the rollback", inc: recoveryIncident(now, startsAt, since, time.Time{}), recovered: true, detail: "30 requests, 0 errors"},
		{name: "still failing after the rollback", inc: recoveryIncident(now, startsAt, time.Time{}, time.Time{}), detail: "error rate above the SLO: 30 requests, 15 errors"},
		{name: "no traffic since the rollback", inc: recoveryIncident(now, startsAt, since, since), detail: "not enough traffic to judge: 0 requests"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv := httptest.NewServer(fakesignoz.New(c.inc, fakesignoz.Options{APIKey: "read-only", Now: clock}))
			t.Cleanup(srv.Close)
			f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			t.Cleanup(func() { _ = f.Close() })

			senv := map[string]string{"AGENTK_SIGNOZ_URL": srv.URL, "AGENTK_SIGNOZ_API_KEY": "read-only"}
			sd, err := f.Deps(ctx, envelope.RoleSandbox, clock, func(k string) string { return senv[k] })
			require.NoError(t, err)
			runService(ctx, t, sd, sandbox.Run)

			dd, err := f.Deps(ctx, envelope.RoleDeployer, clock, func(string) string { return "" })
			require.NoError(t, err)
			alert, err := f.Signer(envelope.RoleIngester).SealJSON(contracts.SubjectAlert,
				contracts.AlertV1{IncidentID: "inc-1", Status: contracts.AlertFiring, Service: "shop-api", StartsAt: startsAt}, startsAt, 0)
			require.NoError(t, err)
			check := recovery.Sandbox{Bus: dd.Bus, Signer: dd.Signer, Keyring: dd.Keyring, Now: clock,
				Rule: recovery.Rule{MaxErrorRate: 0.01, MinRequests: 20}}
			ok, detail, err := check.Recovered(ctx, rollback.RecoveryQuery{ActionID: "action.appr-1", IncidentID: "inc-1",
				Service: "shop-api", Alert: alert.Marshal(), Since: since})
			require.NoError(t, err)
			t.Log(detail)
			require.Equal(t, c.recovered, ok, detail)
			require.Contains(t, detail, c.detail)

			// The verification is durable evidence like any other, marked as the deployer's.
			admin, err := f.Admin(ctx)
			require.NoError(t, err)
			defer func() { _ = admin.Close() }()
			st, err := admin.JetStream().Stream(ctx, "AGENTK_EVIDENCE")
			require.NoError(t, err)
			m, err := st.GetLastMsgForSubject(ctx, contracts.SubjectEvidence)
			require.NoError(t, err)
			var ev contracts.EvidenceV1
			_, err = f.Keyring().Open(m.Data, contracts.SubjectEvidence, now, &ev)
			require.NoError(t, err)
			require.Equal(t, "verify-action.appr-1", ev.InvestigationID)
			require.Equal(t, contracts.ToolServiceOverview, ev.Tool)
			require.Equal(t, since, ev.From)
			require.Equal(t, now, ev.To)
			require.Contains(t, detail, ev.ID)

			// Without a verified alert the deployer does not even ask.
			_, _, err = check.Recovered(ctx, rollback.RecoveryQuery{ActionID: "action.appr-2", IncidentID: "inc-1", Service: "shop-api",
				AlertProblem: "decision dec-1 carries no alert", Since: since})
			require.ErrorIs(t, err, recovery.ErrNoAlert)
			// Asking about another service is refused by the sandbox.
			_, _, err = check.Recovered(ctx, rollback.RecoveryQuery{ActionID: "action.appr-3", IncidentID: "inc-1",
				Service: "shop-db", Alert: alert.Marshal(), Since: since})
			require.ErrorIs(t, err, recovery.ErrSandbox)
			require.Contains(t, err.Error(), "only the alert's service")
			info, err := st.Info(ctx)
			require.NoError(t, err)
			require.EqualValues(t, 1, info.State.Msgs, "refusals record nothing")
		})
	}
}
