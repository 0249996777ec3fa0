package ledger_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/deployer/internal/ledger"

	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func obs(image, id string) ledger.Observation {
	return ledger.Observation{Project: "shop", Service: "shop-api", Image: image, ImageID: id, StartedAt: now}
}

func rel(version, image, id string) contracts.Release {
	return contracts.Release{Version: version, Image: image, ImageID: id}
}

func TestObserve(t *testing.T) {
	t.Parallel()
	v1 := rel("v1", "shop:v1", "sha256:1")
	v2 := rel("v2", "shop:v2", "sha256:2")
	cases := []struct {
		name    string
		have    []contracts.Release
		obs     ledger.Observation
		want    []string // image ids
		changed bool
	}{
		{name: "first sighting", obs: obs("shop:v1", "sha256:1"), want: []string{"sha256:1"}, changed: true},
		{name: "new release appended", have: []contracts.Release{v1}, obs: obs("shop:v2", "sha256:2"), want: []string{"sha256:1", "sha256:2"}, changed: true},
		{name: "restart on the same image changes nothing", have: []contracts.Release{v1, v2}, obs: obs("shop:v2", "sha256:2"), want: []string{"sha256:1", "sha256:2"}},
		{name: "rollback cuts the ledger back", have: []contracts.Release{v1, v2}, obs: obs("sha256:1", "sha256:1"), want: []string{"sha256:1"}, changed: true},
		{name: "a retagged v1 is a new release, not v1", have: []contracts.Release{v1, v2}, obs: obs("shop:v1", "sha256:9"), want: []string{"sha256:1", "sha256:2", "sha256:9"}, changed: true},
		{name: "redeploy of v2 after a rollback", have: []contracts.Release{v1}, obs: obs("shop:v2", "sha256:2"), want: []string{"sha256:1", "sha256:2"}, changed: true},
		{name: "seeded release learns its image id", have: []contracts.Release{rel("v1", "shop:v1", "")}, obs: obs("shop:v1", "sha256:1"), want: []string{"sha256:1"}, changed: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l := contracts.ReleaseLedgerV1{Project: "shop", Service: "shop-api", Releases: c.have}
			got, changed := ledger.Observe(l, c.obs, now)
			require.Equal(t, c.changed, changed)
			var ids []string
			for _, r := range got.Releases {
				ids = append(ids, r.ImageID)
			}
			require.Equal(t, c.want, ids)
			require.Len(t, l.Releases, len(c.have), "the input is not modified")
		})
	}
}

func TestObserveVersionNames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, image, label, want string
	}{
		{name: "label wins", image: "shop:latest", label: "v7", want: "v7"},
		{name: "tag", image: "registry.local:5000/shop:v2", want: "v2"},
		{name: "registry port is no tag", image: "registry.local:5000/shop", want: "0123456789ab"},
		{name: "pinned by id", image: "sha256:0123456789abcdef", want: "0123456789ab"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := obs(c.image, "sha256:0123456789abcdef")
			o.Version = c.label
			got, _ := ledger.Observe(contracts.ReleaseLedgerV1{}, o, now)
			require.Equal(t, c.want, got.Releases[0].Version)
		})
	}
}
