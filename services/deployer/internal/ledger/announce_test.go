package ledger_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/deployer/internal/ledger"

	"github.com/stretchr/testify/require"
)

func TestAnnounce(t *testing.T) {
	t.Parallel()
	v1 := rel("v1", "shop:v1", "sha256:1")
	v2 := rel("v2", "shop:v2", "sha256:2")
	v3 := rel("v3", "shop:v3", "sha256:3")
	event := func(o ledger.Observation) ledger.Observation { o.FromEvent = true; return o }
	pinned := func(o ledger.Observation) ledger.Observation { o.Pinned = true; return o }
	unstarted := func(o ledger.Observation) ledger.Observation { o.StartedAt = time.Time{}; return o }
	labelled := func(o ledger.Observation) ledger.Observation { o.Version = "2.0.1"; return o }
	cases := []struct {
		name string
		have []contracts.Release
		obs  ledger.Observation
		want ledger.Announcement // Reason compared only as non-empty
	}{
		{name: "new image: a deploy from the ledger's last version", have: []contracts.Release{v1}, obs: event(obs("shop:v2", "sha256:2")),
			want: ledger.Announcement{Emit: true, Kind: ledger.KindDeploy, Version: "v2", PreviousVersion: "v1"}},
		{name: "new image found by the listing after a deployer restart: still announced", have: []contracts.Release{v1}, obs: obs("shop:v2", "sha256:2"),
			want: ledger.Announcement{Emit: true, Kind: ledger.KindDeploy, Version: "v2", PreviousVersion: "v1"}},
		{name: "the image's version label names the version", have: []contracts.Release{v1}, obs: event(labelled(obs("shop:v2", "sha256:2"))),
			want: ledger.Announcement{Emit: true, Kind: ledger.KindDeploy, Version: "2.0.1", PreviousVersion: "v1"}},
		{name: "docker restart on the same image: nothing", have: []contracts.Release{v1, v2}, obs: event(obs("shop:v2", "sha256:2"))},
		{name: "recreate on the same image (compose up --force-recreate): nothing", have: []contracts.Release{v1, v2}, obs: event(obs("shop:v2", "sha256:2"))},
		{name: "deployer restarted after it announced: the ledger ends with the image, nothing", have: []contracts.Release{v1, v2}, obs: obs("shop:v2", "sha256:2")},
		{name: "seeded release learning its image id: nothing", have: []contracts.Release{rel("v1", "shop:v1", "")}, obs: event(obs("shop:v1", "sha256:1"))},
		{name: "rollback by hand to an image the ledger knew", have: []contracts.Release{v1, v2, v3}, obs: event(obs("shop:v1", "sha256:1")),
			want: ledger.Announcement{Emit: true, Kind: ledger.KindRollback, Version: "v1", PreviousVersion: "v3"}},
		{name: "rollback by hand by image id: the ledger's version", have: []contracts.Release{v1, v2}, obs: event(obs("sha256:1", "sha256:1")),
			want: ledger.Announcement{Emit: true, Kind: ledger.KindRollback, Version: "v1", PreviousVersion: "v2"}},
		{name: "the deployer's own rollback (pinned): its own marker, not a second", have: []contracts.Release{v1, v2}, obs: event(pinned(obs("sha256:1", "sha256:1")))},
		{name: "a retagged v1 (new image id) is a deploy, not a rollback", have: []contracts.Release{v1, v2}, obs: event(obs("shop:v1", "sha256:9")),
			want: ledger.Announcement{Emit: true, Kind: ledger.KindDeploy, Version: "v1", PreviousVersion: "v2"}},
		{name: "first sight from the listing: a running stack met, nothing", obs: obs("shop:v1", "sha256:1")},
		{name: "first sight from a start event: a deploy with no previous version", obs: event(obs("shop:v1", "sha256:1")),
			want: ledger.Announcement{Emit: true, Kind: ledger.KindDeploy, Version: "v1"}},
		{name: "no start time: never the time the watcher noticed", have: []contracts.Release{v1}, obs: event(unstarted(obs("shop:v2", "sha256:2")))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			prev := contracts.ReleaseLedgerV1{Project: "shop", Service: "shop-api", Releases: c.have}
			got := ledger.Announce(prev, c.obs)
			if c.want.Emit {
				require.Equal(t, c.want, got)
				return
			}
			require.False(t, got.Emit, "%+v", got)
			require.NotEmpty(t, got.Reason, "a silent observation says why")
		})
	}
}
