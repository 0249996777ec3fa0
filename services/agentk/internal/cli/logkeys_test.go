package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/platform/lockedbuf"
	"agentk/platform/service"

	"github.com/stretchr/testify/require"
)

// Every JSON log line of a whole replay carries at most one "service" key,
// and it is the component that logged; the incident's service is
// "incident_service".
func TestOneServiceKeyPerLogLine(t *testing.T) {
	if testing.Short() {
		t.Skip("replays an incident")
	}
	var buf lockedbuf.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := replay.Run(ctx, filepath.Join(repoRoot, "e2e", "incidents", "retry-storm-01"), replay.Options{Logger: log, DataDir: t.TempDir()})
	require.NoError(t, err)
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	lines, incidentService := 0, 0
	for sc.Scan() {
		line := sc.Text()
		lines++
		require.LessOrEqual(t, strings.Count(line, `"service":`), 1, "one service key per line: %s", line)
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		if s, ok := rec["service"].(string); ok {
			require.True(t, slices.Contains(service.Roles(), s), "service is the component, not %q: %s", s, line)
		}
		if rec["incident_service"] == "shop-api" {
			incidentService++
		}
	}
	require.Positive(t, lines)
	require.Positive(t, incidentService, "the incident's service is logged as incident_service")
}
