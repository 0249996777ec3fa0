package bus_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"

	"github.com/stretchr/testify/require"
)

// TestUntilAnsweredIsRetriedPastMaxDeliver holds issue 36's second cause
// at the bus: an approval the deployer could not act on yet (its stores
// without a leader while the cluster re-elected) was dead-lettered at the
// MaxDeliver-th delivery, where no human looks, and the approved rollback
// silently went nowhere. A handler registered UntilAnswered is redelivered
// past MaxDeliver until it answers (the deployer answers an expired
// approval with a refusal); any other handler still dead-letters there.
func TestUntilAnsweredIsRetriedPastMaxDeliver(t *testing.T) {
	t.Parallel()
	const maxDeliver, failures = 2, 5
	cases := []struct {
		name string
		opts []bus.HandleOption
		// answered: handled on delivery failures+1; else dead-lettered on
		// delivery maxDeliver.
		answered bool
	}{
		{name: "until answered", opts: []bus.HandleOption{bus.UntilAnswered()}, answered: true},
		{name: "default", answered: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFabric(t, bus.Config{Retries: -1, RedeliveryDelay: 10 * time.Millisecond, MaxRedeliveryDelay: 40 * time.Millisecond, MaxDeliver: maxDeliver})
			adm := admin(t, f)
			dlq := watchSubject(t, adm, "agentk.dlq.>")
			bridge := connect(t, f, envelope.RoleBridge)
			dep := connect(t, f, envelope.RoleDeployer)
			answered := make(chan int, 1)
			r, err := dep.NewRouter(nil)
			require.NoError(t, err)
			r.Handle("deployer", contracts.SubjectApproval, func(_ context.Context, m bus.Message) ([]bus.Out, error) {
				if m.Delivery <= failures {
					return nil, errors.New("store without a leader")
				}
				answered <- m.Delivery
				return nil, nil
			}, tc.opts...)
			stop := runRouter(t, r)
			env := seal(t, f, envelope.RoleBridge, contracts.SubjectApproval, `{}`)
			require.NoError(t, bridge.Publish(context.Background(), contracts.SubjectApproval, bus.Out{Envelope: env, MsgID: "approval.1"}, nil))
			if tc.answered {
				require.Equal(t, failures+1, wait(t, answered, "the answer after the failures"))
				select {
				case m := <-dlq:
					t.Fatalf("dead-lettered: %s %s", m.Subject, m.Header.Get(bus.HeaderDLQReason))
				default:
				}
			} else {
				m := wait(t, dlq, "dead letter")
				require.Equal(t, "max_deliver", m.Header.Get(bus.HeaderDLQReason))
				require.Equal(t, "2", m.Header.Get(bus.HeaderDLQDeliveries))
			}
			require.NoError(t, stop())
		})
	}
}
