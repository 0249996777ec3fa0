package bus_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"agentk/contracts/envelope"
	"agentk/platform/bus"

	"github.com/stretchr/testify/require"
)

// TestReplicasShareADurableConsumer is what makes a stateless service scale
// out: replicas that register the same handler name on their own connections
// pull from one durable consumer, so each message goes to exactly one of them
// and they work at the same time.
func TestReplicasShareADurableConsumer(t *testing.T) {
	t.Parallel()
	const replicas, msgs = 3, 12
	f := startFabric(t, bus.Config{})
	ing := connect(t, f, envelope.RoleIngester)

	var mu sync.Mutex
	byMsg := map[string][]int{} // message id -> replicas that handled it
	// A replica holds one delivery of a handler at a time (the subscriber
	// acks before it takes the next), so the first `replicas` deliveries
	// held at once can only be one in each replica: the barrier below
	// passes only if every replica pulls from the shared consumer.
	held, all := 0, make(chan struct{})
	done := make(chan struct{})
	for r := range replicas {
		c := connect(t, f, envelope.RoleInvestigator)
		router, err := c.NewRouter(nil)
		require.NoError(t, err)
		router.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
			mu.Lock()
			id := m.Metadata["nats-msg-id"]
			byMsg[id] = append(byMsg[id], r)
			if held++; held == replicas {
				close(all)
			}
			if len(byMsg) == msgs {
				close(done)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-ctx.Done():
			}
			return nil, nil
		})
		runRouter(t, router)
	}
	for i := range msgs {
		publishAlert(t, f, ing, fmt.Sprintf("alert.replica.%d", i))
	}
	wait(t, all, "one delivery held in each replica at once")
	wait(t, done, "every message delivered")

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, byMsg, msgs)
	for id, rs := range byMsg {
		require.Len(t, rs, 1, "%s went to replicas %v", id, rs)
	}
}
