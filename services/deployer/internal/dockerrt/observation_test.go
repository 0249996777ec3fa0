package dockerrt

import (
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/stretchr/testify/require"
)

func TestObservation(t *testing.T) {
	t.Parallel()
	ctr := func(image string, labels map[string]string) container.InspectResponse {
		l := map[string]string{LabelProject: "shop", LabelService: "shop-api", LabelVersion: "v1"}
		for k, v := range labels {
			l[k] = v
		}
		return container.InspectResponse{
			ContainerJSONBase: &container.ContainerJSONBase{ID: "c0ffee", Image: image,
				State: &container.State{Running: true, StartedAt: "2026-11-30T10:02:03.123456789Z"}},
			Config: &container.Config{Image: "shop:v1", Labels: l},
		}
	}
	d := &Docker{project: "shop"}
	cases := []struct {
		name   string
		c      container.InspectResponse
		ok     bool
		pinned bool
	}{
		{name: "a compose container", c: ctr("sha256:1", nil), ok: true},
		{name: "the deployer's pin naming the image it runs", c: ctr("sha256:1", map[string]string{LabelPin: "sha256:1"}), ok: true, pinned: true},
		{name: "a pin naming another image is not the deployer's rollback", c: ctr("sha256:2", map[string]string{LabelPin: "sha256:1"}), ok: true},
		{name: "another project's container", c: ctr("sha256:1", map[string]string{LabelProject: "other"})},
		{name: "not a compose service", c: ctr("sha256:1", map[string]string{LabelService: ""})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o, ok := d.Observation(c.c)
			require.Equal(t, c.ok, ok)
			if !ok {
				return
			}
			require.Equal(t, c.pinned, o.Pinned)
			require.Equal(t, "c0ffee", o.ContainerID)
			require.Equal(t, time.Date(2026, 11, 30, 10, 2, 3, 123456789, time.UTC), o.StartedAt, "Docker's start time")
			require.False(t, o.FromEvent, "only Watch's event path sets it")
		})
	}
}
