package bus_test

import (
	"context"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"

	"github.com/stretchr/testify/require"
)

// Closing the fabric while a handler runs lets it finish: its output is
// stored and its input acked, as a restart on the same data dir shows.
func TestFabricCloseWaitsForInFlightHandler(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: dir, Bus: bus.Config{AckWait: time.Second, Retries: -1}})
	require.NoError(t, err)
	ing := connect(t, f, envelope.RoleIngester)
	inv := connect(t, f, envelope.RoleInvestigator)
	h := &idempotentInvestigator{f: f}
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	r, err := inv.NewRouter(nil)
	require.NoError(t, err)
	r.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		entered <- struct{}{}
		<-release
		return h.report(t, m), nil
	})
	runRouter(t, r)
	publishAlert(t, f, ing, "alert.shutdown")
	wait(t, entered, "delivery")
	closed := make(chan error, 1)
	go func() { closed <- f.Close() }()
	close(release)
	require.NoError(t, wait(t, closed, "fabric close"))

	f2, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, f2.Close()) })
	adm := admin(t, f2)
	require.Len(t, streamMsgs(t, adm, "AGENTK_REPORTS"), 1)
	info := consumerInfo(t, adm, "AGENTK_ALERTS", "investigate")
	require.Zero(t, info.NumAckPending, "acked before shutdown")
	require.Zero(t, info.NumPending)
}
