package rollback_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/deployer/internal/kvstore"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

// unreachableBucket is a store the cluster cannot serve (no leader, no
// quorum): every call times out.
type unreachableBucket struct{}

func (unreachableBucket) Get(context.Context, string) (kvstore.Entry, error) {
	return kvstore.Entry{}, fmt.Errorf("kvstore: get: %w", context.DeadlineExceeded)
}

func (unreachableBucket) Put(context.Context, string, []byte, uint64) (uint64, error) {
	return 0, fmt.Errorf("kvstore: put: %w", context.DeadlineExceeded)
}

func (unreachableBucket) Keys(context.Context) ([]string, error) {
	return nil, fmt.Errorf("kvstore: keys: %w", context.DeadlineExceeded)
}

// TestAnApprovalThatCannotBeSettledIsAnsweredOnceExpired is issue 36's
// "never dropped": while its stores are unreachable an approval is a
// transient failure on every delivery (redelivered, nothing decided, nothing
// run); once it expired it is answered with a refusal that says it expired
// unsettled, which the bridge posts in the thread.
func TestAnApprovalThatCannotBeSettledIsAnsweredOnceExpired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	dep := e.deployer()
	dep.Nonces = unreachableBucket{}
	denv := testkit.SealDecision(t, e.keys.Gate, testkit.Decision("dec-1", "shop-api", t0), t0)
	raw := testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0)
	delivery := 1
	for ; e.now.Before(t0.Add(20 * time.Minute)); delivery++ {
		res, err := dep.Handle(context.Background(), raw, delivery)
		if err == nil {
			require.Equal(t, contracts.OutcomeRefused, res.Action.Outcome, res.Action.Reason)
			require.NotNil(t, res.Refusal)
			require.Contains(t, []string{policy.ReasonApprovalExpired, policy.ReasonDecisionExpired}, res.Refusal.Reason)
			require.Contains(t, res.Action.Reason, fmt.Sprintf("not acted on before it expired: delivery %d", delivery))
			require.Zero(t, e.rt.applies.Load(), "nothing run")
			require.Greater(t, delivery, 5, "retried past MaxDeliver's default")
			return
		}
		require.ErrorIs(t, err, rollback.ErrTransient)
		e.now = e.now.Add(time.Minute)
	}
	t.Fatalf("still not answered after %d deliveries over 20 minutes", delivery)
}
