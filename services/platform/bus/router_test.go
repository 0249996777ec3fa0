package bus_test

import (
	"context"
	"testing"

	"agentk/contracts/envelope"
	"agentk/platform/bus"

	"github.com/stretchr/testify/require"
)

func TestRouterPublishesOutputsThenAcks(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	ing := connect(t, f, envelope.RoleIngester)
	inv := connect(t, f, envelope.RoleInvestigator)

	got := make(chan bus.Message, 1)
	r, err := inv.NewRouter(nil)
	require.NoError(t, err)
	r.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		got <- m
		return []bus.Out{{Envelope: seal(t, f, envelope.RoleInvestigator, subjReport, `{"r":1}`), MsgID: "report-1"}}, nil
	})
	runRouter(t, r)

	env := seal(t, f, envelope.RoleIngester, subjAlert, `{"a":1}`)
	require.NoError(t, ing.Publish(context.Background(), subjAlert, bus.Out{Envelope: env, MsgID: "alert-1"}, map[string]string{"X-Custom": "v"}))
	m := wait(t, got, "delivery")
	require.Equal(t, subjAlert, m.Subject)
	require.Equal(t, env.Nonce, m.Envelope.Nonce)
	require.Equal(t, 1, m.Delivery)
	require.Equal(t, "v", m.Metadata["x-custom"])
	require.Equal(t, "alert-1", m.Metadata["correlation_id"])

	rev := connect(t, f, envelope.RoleReviewer)
	reports := make(chan bus.Message, 1)
	rr, err := rev.NewRouter(nil)
	require.NoError(t, err)
	rr.Handle("review", subjReport, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		reports <- m
		return nil, nil
	})
	runRouter(t, rr)
	rep := wait(t, reports, "report")
	require.Equal(t, "alert-1", rep.Metadata["correlation_id"], "correlation id carried to outputs")
	require.Equal(t, "report-1", rep.Metadata["nats-msg-id"])
	require.Len(t, streamMsgs(t, admin(t, f), "AGENTK_REPORTS"), 1)
}
