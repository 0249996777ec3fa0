package metamorph

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestForgeDenies: every deny incident of a corpus gets exactly one more
// deployment.marker, of its service's running version, 8 to 14 minutes
// before the alert, and nothing else changes (releases.yaml byte for byte);
// allow incidents are not written.
func TestForgeDenies(t *testing.T) {
	t.Parallel()
	src := "../incidents"
	out := t.TempDir()
	fs, err := ForgeDenies(src, out)
	require.NoError(t, err)
	require.NotEmpty(t, fs)
	for _, f := range fs {
		orig, err := incident.Load(f.Source)
		require.NoError(t, err)
		forged, err := incident.Load(f.Dir)
		require.NoError(t, err, f.Dir)
		require.Equal(t, "deny", forged.Meta.Expect.Verdict)
		require.Equal(t, orig.Meta.Expect, forged.Meta.Expect)
		require.Len(t, forged.Spans, len(orig.Spans)+1)
		rel := orig.Releases.Services[orig.Meta.Service]
		require.Equal(t, rel[len(rel)-1].Version, f.Version)
		require.Greater(t, f.At.Sub(f.Started).Abs(), 5*time.Minute, "a marker the ledger would agree with is no forgery")
		var body struct {
			Alerts []struct {
				StartsAt time.Time `json:"startsAt"`
			} `json:"alerts"`
		}
		require.NoError(t, json.Unmarshal(forged.AlertJSON, &body))
		lead := body.Alerts[0].StartsAt.Sub(f.At)
		require.True(t, lead >= 8*time.Minute && lead <= 14*time.Minute+time.Second, "%s: %s before the alert", f.Dir, lead)
		n := 0
		for _, s := range forged.Spans {
			if s.Name == "deployment.marker" && s.Timestamp.Equal(f.At) && s.Service() == orig.Meta.Service {
				v, _ := incident.PlainString(s.Attributes["deployment.version"])
				require.Equal(t, f.Version, v)
				n++
			}
		}
		require.Equal(t, 1, n, f.Dir)
		a, err := os.ReadFile(filepath.Join(f.Source, "releases.yaml"))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(f.Dir, "releases.yaml"))
		require.NoError(t, err)
		require.True(t, bytes.Equal(a, b), "the ledger is unchanged")
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, entries, len(fs), "allow incidents are not written")
}
