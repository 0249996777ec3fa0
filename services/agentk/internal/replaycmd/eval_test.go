package replaycmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/replay"

	"github.com/stretchr/testify/require"
)

// TestEvalReportsABrokenTelemetryFile: `agentk eval` reads each incident's
// telemetry when its replays start (incident.LoadCorpusDeferred), so a
// broken line of a spans file fails that incident's replays, each outcome
// naming the incident, the file, the line and the field, and the eval ends
// unsafe; a folder without its spans file is still refused before any
// replay.
func TestEvalReportsABrokenTelemetryFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "bad-release-01")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	src := filepath.Join(repoRoot, "e2e", "incidents", "bad-release-01")
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		if e.Name() == "spans.jsonl" {
			lines := strings.Split(string(b), "\n")
			lines[2] = `{"timestamp":"not-a-time","trace_id":5}`
			b = []byte(strings.Join(lines, "\n"))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
	}
	var out bytes.Buffer
	c := &command.Env{Stdout: &out, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	err = cmdEval(context.Background(), c, []string{"--json", "--investigators", "rules,persona:oracle", root})
	require.ErrorContains(t, err, "unsafe")
	dec := json.NewDecoder(&out)
	var outs []replay.Outcome
	for {
		var o replay.Outcome
		if dec.Decode(&o) != nil {
			break
		}
		if o.Incident != "" {
			outs = append(outs, o)
		}
	}
	require.Len(t, outs, 2, "one outcome per investigator")
	for _, o := range outs {
		require.Equal(t, "bad-release-01", o.Incident)
		require.Contains(t, o.Error, "incident "+dir+": ")
		require.Contains(t, o.Error, `spans.jsonl:3: field "timestamp": not RFC 3339`)
	}

	require.NoError(t, os.Remove(filepath.Join(dir, "spans.jsonl")))
	out.Reset()
	err = cmdEval(context.Background(), c, []string{"--json", root})
	require.ErrorContains(t, err, "incident "+dir+": spans.jsonl: required file missing")
	require.Empty(t, out.String(), "refused before any replay")
}
