package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/command/commandtest"
	"agentk/cmd/agentk/replay"

	"github.com/stretchr/testify/require"
)

// repoRoot is the repository, from this package.
const repoRoot = "../../../.."

// After a replay, the operator's commands read what the pipeline stored:
// `agentk incidents` lists the incident with its status and `agentk report`
// prints the report the reviewer kept.
func TestReportAndIncidentsAfterReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("replays an incident")
	}
	data := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := replay.Run(ctx, filepath.Join(repoRoot, "e2e", "incidents", "retry-storm-01"), replay.Options{DataDir: data})
	require.NoError(t, err)
	env := map[string]string{"AGENTK_DATA_DIR": data, "AGENTK_NATS_PORT": "0"}

	c, out, errb := commandtest.New(env)
	require.Equal(t, 0, command.Run(ctx, c, []string{"incidents", "--json", "--since", "87600h"}), errb.String())
	var row incidentRow
	require.NoError(t, json.Unmarshal(bytes.SplitN(out.Bytes(), []byte("\n"), 2)[0], &row))
	require.Equal(t, res.IncidentID, row.IncidentID)
	require.Equal(t, "shop-api", row.Service)
	require.NotEmpty(t, row.Status)

	c, out, errb = commandtest.New(env)
	require.Equal(t, 0, command.Run(ctx, c, []string{"report", res.IncidentID}), errb.String())
	md := out.String()
	require.Contains(t, md, res.IncidentID)
	require.Contains(t, md, `retry\_storm`)
	require.Contains(t, md, `deployment\_related`)

	c, _, errb = commandtest.New(env)
	require.Equal(t, 1, command.Run(ctx, c, []string{"report", "inc-does-not-exist"}))
	require.Contains(t, errb.String(), "no report for incident")
}
