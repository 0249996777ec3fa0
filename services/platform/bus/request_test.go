package bus_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/bus"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

func consumerInfo(t *testing.T, c *bus.Conn, stream, name string) *jetstream.ConsumerInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := c.JetStream().Consumer(ctx, stream, name)
	require.NoError(t, err)
	info, err := cons.Info(ctx)
	require.NoError(t, err)
	return info
}

func TestRequestServe(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	inv := connect(t, f, envelope.RoleInvestigator)
	sbx := connect(t, f, envelope.RoleSandbox)
	call := seal(t, f, envelope.RoleInvestigator, "agentk.tool.v1", `{"tool":"x"}`)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := inv.Request(ctx, "agentk.tool.v1", call)
	require.ErrorIs(t, err, bus.ErrNoResponders)

	stop, err := sbx.Serve(context.Background(), "agentk.tool.v1", "sandbox", func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error) {
		switch string(env.Payload) {
		case `{"tool":"bad"}`:
			return envelope.Envelope{}, bus.Permanent(errors.New("tool not in allowlist"))
		case `{"tool":"flaky"}`:
			return envelope.Envelope{}, errors.New("signoz: 502")
		}
		return seal(t, f, envelope.RoleSandbox, "agentk.tool.v1.reply", `{"ok":true}`), nil
	})
	require.NoError(t, err)

	cases := []struct {
		name      string
		payload   string
		want      string
		wantErr   error
		permanent bool
	}{
		{name: "reply", payload: `{"tool":"x"}`, want: `{"ok":true}`},
		{name: "permanent remote error", payload: `{"tool":"bad"}`, wantErr: bus.ErrRemote, permanent: true},
		{name: "transient remote error", payload: `{"tool":"flaky"}`, wantErr: bus.ErrRemote},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := inv.Request(ctx, "agentk.tool.v1", seal(t, f, envelope.RoleInvestigator, "agentk.tool.v1", tc.payload))
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.Equal(t, tc.permanent, bus.IsPermanent(err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got.Payload))
			require.Equal(t, "agentk.tool.v1.reply", got.Subject)
		})
	}

	require.NoError(t, stop())
	_, err = inv.Request(ctx, "agentk.tool.v1", call)
	require.ErrorIs(t, err, bus.ErrNoResponders, "stop unsubscribed")
}

func TestServeRefusedForRoleWithoutPermission(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	inv := connect(t, f, envelope.RoleInvestigator)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := inv.Serve(ctx, "agentk.tool.v1", "sandbox", func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error) {
		return env, nil
	})
	require.ErrorIs(t, err, bus.ErrServe)
}

func TestKeyValue(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	dep := connect(t, f, envelope.RoleDeployer)
	gate := connect(t, f, envelope.RoleGate)
	ctx := context.Background()

	kv, err := dep.KeyValue(ctx, "agentk_cooldown")
	require.NoError(t, err)
	rev, err := kv.Create(ctx, "api", []byte("v1"))
	require.NoError(t, err)
	_, err = kv.Update(ctx, "api", []byte("v2"), rev)
	require.NoError(t, err)
	_, err = kv.Update(ctx, "api", []byte("v3"), rev)
	require.Error(t, err, "compare-and-set refuses a stale revision")

	gkv, err := gate.KeyValue(ctx, "agentk_cooldown")
	require.NoError(t, err)
	e, err := gkv.Get(ctx, "api")
	require.NoError(t, err)
	require.Equal(t, "v2", string(e.Value()))

	_, err = dep.KeyValue(ctx, "agentk_nope")
	require.ErrorIs(t, err, bus.ErrBucket)
	st, err := kv.Status(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, st.History(), int64(5))
}
