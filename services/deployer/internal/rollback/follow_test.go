package rollback_test

import (
	"context"
	"testing"
	"time"

	"agentk/services/deployer/internal/ledger"
	"agentk/services/deployer/internal/rollback"

	"github.com/stretchr/testify/require"
)

// TestFollowAnnouncesEachStartOnANewImageOnce runs the ledger watcher's
// calls on a real KV: the ledger in KV is the record of what was announced,
// so a restart, a second replica and a restarted deployer announce nothing.
func TestFollowAnnouncesEachStartOnANewImageOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	marks := &fakeMarker{}
	watcher := func() *rollback.Deployer { d := e.deployer(); d.Announcer = marks; return d }
	started := t0.Add(-time.Minute)
	obs := func(version, id, container string, fromEvent bool) ledger.Observation {
		return ledger.Observation{Project: "shop", Service: "shop-api", Image: "agentk-demo/shop-api:" + version, ImageID: id,
			StartedAt: started, ContainerID: container, FromEvent: fromEvent}
	}
	count := func() int { marks.mu.Lock(); defer marks.mu.Unlock(); return len(marks.marks) }

	d := watcher()
	a, err := d.Follow(ctx, obs("v1", "sha256:v1", "c1", false))
	require.NoError(t, err)
	require.False(t, a.Emit, "first sight by the listing: %s", a.Reason)

	a, err = d.Follow(ctx, obs("v2", "sha256:v2", "c2", true))
	require.NoError(t, err)
	require.True(t, a.Emit)
	require.Equal(t, 1, count())
	require.Equal(t, rollback.Mark{Project: "shop", Service: "shop-api", Version: "v2", PreviousVersion: "v1",
		Image: "agentk-demo/shop-api:v2", ImageID: "sha256:v2", DeploymentID: "c2", ContainerID: "c2", Kind: ledger.KindDeploy, At: started}, marks.marks[0])

	// docker restart: the same container starts again on the same image.
	_, err = d.Follow(ctx, obs("v2", "sha256:v2", "c2", true))
	require.NoError(t, err)
	// A second replica's watcher sees the same start event.
	_, err = watcher().Follow(ctx, obs("v2", "sha256:v2", "c2", true))
	require.NoError(t, err)
	// The deployer restarts and lists the running container.
	_, err = watcher().Follow(ctx, obs("v2", "sha256:v2", "c2", false))
	require.NoError(t, err)
	require.Equal(t, 1, count(), "nothing announced twice")

	// The deployer's own rollback: the container carries its pin.
	own := obs("v1", "sha256:v1", "c3", true)
	own.Pinned = true
	a, err = d.Follow(ctx, own)
	require.NoError(t, err)
	require.False(t, a.Emit, a.Reason)
	require.Equal(t, 1, count(), "the rollback's own marker is the only one")
	require.Len(t, e.readLedger(t).Releases, 1, "the ledger is cut back all the same")

	// v2 again, then a rollback by hand.
	_, err = d.Follow(ctx, obs("v2", "sha256:v2", "c4", true))
	require.NoError(t, err)
	a, err = d.Follow(ctx, obs("v1", "sha256:v1", "c5", true))
	require.NoError(t, err)
	require.Equal(t, ledger.Announcement{Emit: true, Kind: ledger.KindRollback, Version: "v1", PreviousVersion: "v2"}, a)
	require.Equal(t, 3, count())
	require.Equal(t, ledger.KindRollback, marks.marks[2].Kind)

	// A compose service outside the allowlist (agentk's own, in the
	// compose stack): its ledger follows, no marker.
	other := obs("v2", "sha256:g2", "c7", true)
	other.Service = "gate"
	_, err = d.Follow(ctx, other)
	require.NoError(t, err)
	_, err = d.Follow(ctx, func() ledger.Observation { o := obs("v3", "sha256:g3", "c8", true); o.Service = "gate"; return o }())
	require.NoError(t, err)
	require.Equal(t, 3, count())

	// Markers off: the ledger still follows, nothing is announced.
	off := e.deployer()
	a, err = off.Follow(ctx, obs("v3", "sha256:v3", "c6", true))
	require.NoError(t, err)
	require.False(t, a.Emit, a.Reason)
	require.Len(t, e.readLedger(t).Releases, 2)
	require.Equal(t, 3, count())
}
