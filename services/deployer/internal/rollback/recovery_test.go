package rollback_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/deployer/internal/rollback"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

// recordingRecovery answers like the sandbox check would with a verified
// alert, and records every query.
type recordingRecovery struct {
	mu sync.Mutex
	qs []rollback.RecoveryQuery
}

func (r *recordingRecovery) Recovered(_ context.Context, q rollback.RecoveryQuery) (bool, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.qs = append(r.qs, q)
	if len(q.Alert) == 0 {
		return false, "", &problem{q.AlertProblem}
	}
	return true, "error rate within the SLO", nil
}

type problem struct{ s string }

func (p *problem) Error() string { return "no verified alert: " + p.s }

// The decision's ingester-signed alert reaches the recovery check only when it
// verifies and names the decision's incident and service; otherwise recovery
// is unknown, reported as not recovered, and the rollback is still done once.
func TestRecoveryQueryCarriesTheDecisionsAlert(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		alert     func(k testkit.Keys) json.RawMessage
		recovered bool
		reason    string
	}{
		{name: "verified alert", recovered: true, reason: "recovered: error rate within the SLO", alert: func(k testkit.Keys) json.RawMessage {
			env, err := k.Ingester.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-dec-1", Service: "shop-api", StartsAt: t0.Add(-10 * time.Minute)}, t0.Add(-10*time.Minute), 0)
			require.NoError(t, err)
			return env.Marshal()
		}},
		{name: "no alert in the decision", reason: "carries no alert", alert: func(testkit.Keys) json.RawMessage { return nil }},
		{name: "alert of another incident", reason: "carries the alert of inc-other/shop-api", alert: func(k testkit.Keys) json.RawMessage {
			env, err := k.Ingester.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-other", Service: "shop-api", StartsAt: t0}, t0, 0)
			require.NoError(t, err)
			return env.Marshal()
		}},
		{name: "alert signed by the gate", reason: "wrong role", alert: func(k testkit.Keys) json.RawMessage {
			env, err := k.Gate.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-dec-1", Service: "shop-api", StartsAt: t0}, t0, 0)
			require.NoError(t, err)
			return env.Marshal()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedLedger(t)
			d := e.deployer()
			rec := &recordingRecovery{}
			d.Recovery = rec
			dec := testkit.Decision("dec-1", "shop-api", t0)
			dec.Alert = c.alert(e.keys)
			denv := testkit.SealDecision(t, e.keys.Gate, dec, t0)
			res, err := d.Handle(context.Background(), testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0), 1)
			require.NoError(t, err)
			require.Equal(t, contracts.OutcomeRolledBack, res.Action.Outcome, res.Action.Reason)
			require.NotNil(t, res.Action.Recovered)
			require.Equal(t, c.recovered, *res.Action.Recovered, res.Action.Reason)
			require.Contains(t, res.Action.Reason, c.reason)
			require.EqualValues(t, 1, e.rt.applies.Load(), "one rollback, never a second")
			require.Len(t, rec.qs, 1)
			q := rec.qs[0]
			require.Equal(t, "action.appr-dec-1", q.ActionID)
			require.Equal(t, "inc-dec-1", q.IncidentID)
			require.Equal(t, "shop-api", q.Service)
			require.Equal(t, t0, q.Since, "from the container's verification on")
			if c.recovered {
				require.Equal(t, dec.Alert, q.Alert)
				require.Empty(t, q.AlertProblem)
			} else {
				require.Nil(t, q.Alert)
				require.Contains(t, q.AlertProblem, c.reason)
			}
		})
	}
}
