package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestExternalIncidentReplaysUnchanged replays a folder written by hand in
// another author's style (Alertmanager payload, `service` label,
// slo_burn_rate, +02:00 offsets, numeric resource values, unknown fields), not
// by the corpus generator.
func TestExternalIncidentReplaysUnchanged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := replay.Run(ctx, filepath.Join("external", "orders-null-deref"), replay.Options{})
	require.NoError(t, err)
	require.Equal(t, "orders-null-deref", res.Incident)
	require.Equal(t, "allow", res.Verdict, "failed: %v", res.FailedChecks)
	require.Equal(t, "dry_run", res.Action)
	require.Equal(t, "registry.internal/orders-svc:v7", res.RollbackTarget)
}

// copyDir copies an incident folder so a test can break one file of it.
func copyDir(t *testing.T, src string) string {
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	require.NoError(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
	return dst
}

// TestMalformedIncidentRefused: a folder that breaks the format is refused
// before anything runs, with the file, line and field named.
func TestMalformedIncidentRefused(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		mutate     func(string) string
		want       []string
	}{
		{"span timestamp not RFC 3339", "spans.jsonl", func(s string) string {
			lines := strings.SplitN(s, "\n", 4)
			lines[2] = strings.Replace(lines[2], `"timestamp": "2026-`, `"timestamp": "yesterday-`, 1)
			return strings.Join(lines, "\n")
		}, []string{"spans.jsonl:3", "timestamp"}},
		{"verdict not allow or deny", "incident.yaml", func(s string) string {
			return strings.Replace(s, "verdict: allow", "verdict: maybe", 1)
		}, []string{"incident.yaml", "verdict"}},
		{"id differs from the folder", "incident.yaml", func(s string) string {
			return strings.Replace(s, "id: orders-null-deref", "id: something-else", 1)
		}, []string{"incident.yaml", "id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, filepath.Join("external", "orders-null-deref"))
			p := filepath.Join(dir, tc.file)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, []byte(tc.mutate(string(b))), 0o644))
			_, err = replay.Run(context.Background(), dir, replay.Options{})
			require.Error(t, err)
			require.True(t, errors.Is(err, incident.ErrInvalid), "%v", err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}
