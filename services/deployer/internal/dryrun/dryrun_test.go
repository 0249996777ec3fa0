package dryrun_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/incident"
	"agentk/services/deployer/internal/dryrun"

	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

func TestLoad(t *testing.T) {
	t.Parallel()
	s, err := dryrun.Load(filepath.Join("..", "..", "testdata", "incidents", "cooldown-01"), now)
	require.NoError(t, err)
	require.Equal(t, "shop", s.Project)
	require.Equal(t, []string{"shop-api"}, s.Services, "sandbox_services narrows the allowlist")
	require.Len(t, s.Ledgers, 2)
	l := s.Ledgers[0]
	require.Equal(t, "shop-api", l.Service)
	target, ok := l.RollbackTarget()
	require.True(t, ok)
	require.Equal(t, "agentk-demo/shop-api:v1", target.Image)
	require.Len(t, s.Cooldowns, 1)
	require.Equal(t, time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC), s.Cooldowns[0].At)

	s, err = dryrun.Load(filepath.Join("..", "..", "testdata", "incidents", "bad-release-01"), now)
	require.NoError(t, err)
	require.Equal(t, []string{"shop-api", "shop-db"}, s.Services, "default: every service in releases.yaml")
	require.Empty(t, s.Cooldowns)
	// The gate corroborates a deployment marker with the time the ledger saw
	// the running release start (issue 31): releases.yaml's deployed_at is
	// the replay's Docker.
	rs := s.Ledgers[0].Releases
	require.Equal(t, time.Date(2026, 11, 30, 10, 2, 0, 0, time.UTC), rs[len(rs)-1].DeployedAt)
	require.Equal(t, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), rs[0].DeployedAt)
}

// A folder is read with incident.Load: every problem is refused and named by
// file and field, whatever the deployer itself would have checked.
func TestLoadRejectsBrokenFolders(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "..", "testdata", "incidents", "cooldown-01")
	cases := []struct {
		name     string
		releases string // "" removes releases.yaml
		want     string
	}{
		{name: "no releases.yaml", want: "releases.yaml: required file missing"},
		{name: "no project", releases: "services:\n  shop-api:\n    - {version: v1, image: a:v1}\n", want: `releases.yaml: field "project": required`},
		{name: "release without image", releases: "project: p\nservices:\n  a:\n    - version: v1\n", want: "image"},
		{name: "not yaml", releases: "project: [\n", want: "releases.yaml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "cooldown-01")
			require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
			rel := filepath.Join(dir, "releases.yaml")
			if c.releases == "" {
				require.NoError(t, os.Remove(rel))
			} else {
				require.NoError(t, os.WriteFile(rel, []byte(c.releases), 0o644))
			}
			_, err := dryrun.Load(dir, now)
			require.ErrorIs(t, err, dryrun.ErrIncident)
			require.ErrorIs(t, err, incident.ErrInvalid)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

// TestLoadsTheRecordedCorpus seeds from every incident of the shared corpus
// (e2e/incidents), which other people write.
func TestLoadsTheRecordedCorpus(t *testing.T) {
	t.Parallel()
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "e2e", "incidents", "*", "releases.yaml"))
	if len(dirs) == 0 {
		t.Skip("no recorded corpus in this checkout")
	}
	for _, r := range dirs {
		dir := filepath.Dir(r)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			s, err := dryrun.Load(dir, now)
			require.NoError(t, err)
			require.NotEmpty(t, s.Project)
			require.NotEmpty(t, s.Ledgers)
			require.NotEmpty(t, s.Services)
		})
	}
}
