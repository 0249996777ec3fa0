package bus_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/topology"

	"github.com/stretchr/testify/require"
)

// TestContentErrorsDeadLetterAndTheRouterGoesOn is issue 19's poison
// messages: a handler whose KV key, made from content, is too long for the
// protocol (it killed the gate's connection) and a handler whose output is
// over the server's maximum payload (it was retried forever). Each message
// goes to the dead-letter stream with its reason at once, and the router
// handles the next message.
func TestContentErrorsDeadLetterAndTheRouterGoesOn(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		poison func(ctx context.Context, gate *bus.Conn) ([]bus.Out, error)
		reason string
		errSub string
	}{
		{name: "KV key from a 100 KB service name", reason: "content", errSub: "KV key of 102400 bytes",
			poison: func(ctx context.Context, gate *bus.Conn) ([]bus.Out, error) {
				key := strings.Repeat("s", 100<<10)
				if err := bus.SafeKey(key); err != nil {
					return nil, err // what a handler does: check the key where it is built
				}
				kv, err := gate.KeyValue(ctx, topology.BucketCooldown)
				if err != nil {
					return nil, err
				}
				_, err = kv.Get(ctx, key)
				return nil, err
			}},
		{name: "output over the maximum payload", reason: "permanent", errSub: "maximum payload",
			poison: func(ctx context.Context, gate *bus.Conn) ([]bus.Out, error) {
				env := envelope.Envelope{Subject: contracts.SubjectDecision, Payload: []byte(strings.Repeat("x", 2<<20))}
				return []bus.Out{{Envelope: env, MsgID: "decision.huge"}}, nil
			}},
		{name: "invalid KV key returned as a plain error", reason: "content", errSub: "invalid key",
			poison: func(ctx context.Context, gate *bus.Conn) ([]bus.Out, error) {
				kv, err := gate.KeyValue(ctx, topology.BucketCooldown)
				if err != nil {
					return nil, err
				}
				_, err = kv.Get(ctx, "shop\x00api")
				return nil, err
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// MaxDeliver 50: only a content classification dead-letters at once.
			f := startFabric(t, bus.Config{Retries: -1, RedeliveryDelay: 10 * time.Millisecond, MaxDeliver: 50})
			adm := admin(t, f)
			dlq := watchSubject(t, adm, "agentk.dlq.>")
			rev := connect(t, f, envelope.RoleReviewer)
			gate := connect(t, f, envelope.RoleGate)
			handled := make(chan string, 4)
			var mu sync.Mutex
			calls := map[string]int{}
			r, err := gate.NewRouter(nil)
			require.NoError(t, err)
			r.Handle("gate", contracts.SubjectReview, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
				mu.Lock()
				calls[string(m.Envelope.Payload)]++
				mu.Unlock()
				if string(m.Envelope.Payload) == "poison" {
					return tc.poison(ctx, gate)
				}
				handled <- string(m.Envelope.Payload)
				return nil, nil
			})
			stop := runRouter(t, r)
			ctx := context.Background()
			require.NoError(t, rev.Publish(ctx, contracts.SubjectReview, bus.Out{Envelope: seal(t, f, envelope.RoleReviewer, contracts.SubjectReview, "poison"), MsgID: "review.poison"}, nil))
			require.NoError(t, rev.Publish(ctx, contracts.SubjectReview, bus.Out{Envelope: seal(t, f, envelope.RoleReviewer, contracts.SubjectReview, "next"), MsgID: "review.next"}, nil))

			m := wait(t, dlq, "dead letter")
			require.Equal(t, "agentk.dlq."+contracts.SubjectReview, m.Subject)
			require.Equal(t, tc.reason, m.Header.Get(bus.HeaderDLQReason))
			require.Contains(t, m.Header.Get(bus.HeaderDLQError), tc.errSub)
			require.LessOrEqual(t, len(m.Header.Get(bus.HeaderDLQError)), 1100, "the reason is bounded")
			require.Equal(t, "next", wait(t, handled, "the next message"))
			require.True(t, gate.Connected(), "the connection survived")
			mu.Lock()
			require.Equal(t, 1, calls["poison"], "dead-lettered at the first delivery")
			mu.Unlock()
			require.NoError(t, stop())
		})
	}
}

func TestSafeKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, key string
		ok        bool
	}{
		{"service name", "shop-api", true},
		{"dotted", "open.shop-api.0123", true},
		{"empty", "", false},
		{"too long", strings.Repeat("a", bus.MaxKeyBytes+1), false},
		{"longest", strings.Repeat("a", bus.MaxKeyBytes), true},
		{"space", "shop api", false},
		{"NUL", "shop\x00", false},
		{"wildcard", "shop.*", false},
		{"leading dot", ".shop", false},
		{"unicode", "café", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := bus.SafeKey(tc.key)
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, bus.ErrContent)
			require.True(t, bus.IsContent(err))
		})
	}
}

// TestRunReportsARouterThatStoppedOnItsOwn: a router whose connection closed
// under it returns ErrStopped instead of nil, so its runner can tell.
func TestRunReportsARouterThatStoppedOnItsOwn(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	gate := connect(t, f, envelope.RoleGate)
	r, err := gate.NewRouter(nil)
	require.NoError(t, err)
	r.Handle("gate", contracts.SubjectReview, func(context.Context, bus.Message) ([]bus.Out, error) { return nil, nil })
	errc := make(chan error, 1)
	go func() { errc <- r.Run(context.Background()) }()
	wait(t, r.Running(), "router running")
	gate.NATS().Close()
	require.ErrorIs(t, wait(t, errc, "Run to return"), bus.ErrStopped)
}

// TestAReplyTooLargeIsAPermanentErrorNotATimeout: a tool reply over the
// server's maximum payload reaches the requester as a permanent remote
// error at once, instead of a timeout it would retry into the same wall.
func TestAReplyTooLargeIsAPermanentErrorNotATimeout(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	inv := connect(t, f, envelope.RoleInvestigator)
	sbx := connect(t, f, envelope.RoleSandbox)
	stop, err := sbx.Serve(context.Background(), "agentk.tool.v1", "sandbox", func(context.Context, envelope.Envelope, map[string]string) (envelope.Envelope, error) {
		return envelope.Envelope{Subject: "agentk.tool.v1.reply", Payload: []byte(strings.Repeat("x", 2<<20))}, nil
	})
	require.NoError(t, err)
	defer func() { _ = stop() }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	started := time.Now()
	_, err = inv.Request(ctx, "agentk.tool.v1", seal(t, f, envelope.RoleInvestigator, "agentk.tool.v1", `{"tool":"x"}`))
	require.ErrorIs(t, err, bus.ErrRemote)
	require.True(t, bus.IsPermanent(err), "%v", err)
	require.Contains(t, err.Error(), "maximum payload")
	require.Less(t, time.Since(started), 5*time.Second, "not a timeout")
}
