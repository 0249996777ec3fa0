package dockerrt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestDetectCompose(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		installed map[string]bool
		v2plugin  bool
		want      []string
		err       error
	}{
		{name: "compose v2 plugin", installed: map[string]bool{"docker": true, "docker-compose": true}, v2plugin: true, want: []string{"/bin/docker", "compose"}},
		{name: "v1 where the plugin is missing", installed: map[string]bool{"docker": true, "docker-compose": true}, want: []string{"/bin/docker-compose"}},
		{name: "v1 only", installed: map[string]bool{"docker-compose": true}, want: []string{"/bin/docker-compose"}},
		{name: "nothing", installed: map[string]bool{}, err: ErrNoCompose},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			look := func(f string) (string, error) {
				if c.installed[f] {
					return "/bin/" + f, nil
				}
				return "", errors.New("not found")
			}
			run := func(_ context.Context, argv ...string) error {
				if argv[0] == "/bin/docker" && !c.v2plugin {
					return errors.New("docker: 'compose' is not a docker command")
				}
				return nil
			}
			got, err := DetectCompose(context.Background(), look, run)
			require.ErrorIs(t, err, c.err)
			require.Equal(t, c.want, got)
		})
	}
}

// TestComposeMemoAsksOnce: a process asks for its compose once (each ask of
// docker-compose v1 costs over a second); a failed ask is asked again.
func TestComposeMemoAsksOnce(t *testing.T) {
	t.Parallel()
	var m ComposeMemo
	runs, installed := 0, false
	look := func(f string) (string, error) {
		if f == "docker-compose" && installed {
			return "/bin/docker-compose", nil
		}
		return "", errors.New("not found")
	}
	run := func(context.Context, ...string) error { runs++; return nil }
	_, err := m.Detect(context.Background(), look, run)
	require.ErrorIs(t, err, ErrNoCompose)
	installed = true
	for range 3 {
		got, err := m.Detect(context.Background(), look, run)
		require.NoError(t, err)
		require.Equal(t, []string{"/bin/docker-compose"}, got)
		got[0] = "changed by a caller"
	}
	require.Equal(t, 1, runs, "asked once after the first success")
}

func TestPinWritesAnOverrideComposeAccepts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "docker-compose.yml")
	require.NoError(t, os.WriteFile(file, []byte("version: \"3.8\"\nservices:\n  shop-api:\n    image: shop:v2\n"), 0o644))
	c := &Compose{Bin: []string{"docker-compose"}, Project: "shop", File: file, StateDir: filepath.Join(dir, "state")}
	require.NoError(t, c.pin("shop-api", "sha256:1"))
	require.NoError(t, c.pin("payments", "sha256:p"))
	require.NoError(t, c.pin("shop-api", "sha256:0"))
	b, err := os.ReadFile(c.OverridePath())
	require.NoError(t, err)
	var doc struct {
		Version  string
		Services map[string]struct {
			Image  string
			Labels map[string]string
		}
	}
	require.NoError(t, yaml.Unmarshal(b, &doc))
	require.Equal(t, "3.8", doc.Version, "the override matches the main file's version")
	require.Equal(t, "sha256:0", doc.Services["shop-api"].Image)
	require.Equal(t, "sha256:p", doc.Services["payments"].Image, "other pins are kept")
	require.Equal(t, map[string]string{LabelPin: "sha256:0"}, doc.Services["shop-api"].Labels, "the container says the deployer pinned it")
	require.Equal(t, []string{"docker-compose", "-p", "shop", "-f", file, "-f", c.OverridePath(), "up", "-d", "--force-recreate", "--no-deps", "shop-api"}, c.Command("shop-api"))
}

func TestJudge(t *testing.T) {
	t.Parallel()
	ctr := func(image string, running bool, health container.HealthStatus) container.InspectResponse {
		st := &container.State{Running: running}
		if health != "" {
			st.Health = &container.Health{Status: health}
		}
		return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{Name: "/shop-api-1", Image: image, State: st}}
	}
	cases := []struct {
		name string
		cs   []container.InspectResponse
		ok   bool
	}{
		{name: "target, running, healthy", cs: []container.InspectResponse{ctr("sha256:1", true, container.Healthy)}, ok: true},
		{name: "target, running, no healthcheck", cs: []container.InspectResponse{ctr("sha256:1", true, "")}, ok: true},
		{name: "still on the old image (a restart)", cs: []container.InspectResponse{ctr("sha256:2", true, container.Healthy)}},
		{name: "target but exited", cs: []container.InspectResponse{ctr("sha256:1", false, "")}},
		{name: "target but health starting", cs: []container.InspectResponse{ctr("sha256:1", true, container.Starting)}},
		{name: "target but unhealthy", cs: []container.InspectResponse{ctr("sha256:1", true, container.Unhealthy)}},
		{name: "one replica of two on the old image", cs: []container.InspectResponse{ctr("sha256:1", true, ""), ctr("sha256:2", true, "")}},
		{name: "no container", cs: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := judge(c.cs, "sha256:1")
			require.Equal(t, c.ok, v.Verified, v.Detail)
		})
	}
}
