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
// and they work at the same time; Concurrency lets one replica hold several
// deliveries at once.
func TestReplicasShareADurableConsumer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                  string
		replicas, concurrency int
	}{
		{name: "three replicas", replicas: 3, concurrency: 1},
		{name: "one replica, three at once", replicas: 1, concurrency: 3},
		{name: "two replicas, two at once each", replicas: 2, concurrency: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const msgs = 12
			f := startFabric(t, bus.Config{})
			ing := connect(t, f, envelope.RoleIngester)

			var mu sync.Mutex
			byMsg := map[string][]int{} // message id -> replicas that handled it
			// A replica holds at most `concurrency` deliveries of a handler
			// at once (the subscriber pulls the next only when a slot is
			// free), so replicas*concurrency deliveries held at once can
			// only be every replica using every slot: the barrier passes
			// only if all of them pull from the shared consumer.
			held, all := 0, make(chan struct{})
			done := make(chan struct{})
			for r := range tc.replicas {
				c := connect(t, f, envelope.RoleInvestigator)
				router, err := c.NewRouter(nil)
				require.NoError(t, err)
				router.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
					mu.Lock()
					id := m.Metadata["nats-msg-id"]
					byMsg[id] = append(byMsg[id], r)
					if held++; held == tc.replicas*tc.concurrency {
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
				}, bus.Concurrency(tc.concurrency))
				runRouter(t, router)
			}
			for i := range msgs {
				publishAlert(t, f, ing, fmt.Sprintf("alert.replica.%d", i))
			}
			wait(t, all, "every slot of every replica holding a delivery at once")
			wait(t, done, "every message delivered")

			mu.Lock()
			defer mu.Unlock()
			require.Len(t, byMsg, msgs)
			for id, rs := range byMsg {
				require.Len(t, rs, 1, "%s went to replicas %v", id, rs)
			}
		})
	}
}
