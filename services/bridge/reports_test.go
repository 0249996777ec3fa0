package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/fabric"
	"agentk/platform/report"
	"agentk/platform/topology"

	"github.com/stretchr/testify/require"
)

// The console's incident page shows the report the reviewer stored, every
// hostile text escaped.
func TestReportsFromKV(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	admin, err := f.Admin(ctx)
	require.NoError(t, err)
	kv, err := admin.KeyValue(ctx, topology.BucketReports)
	require.NoError(t, err)
	src := report.Sources{
		Alert: &contracts.AlertV1{IncidentID: "inc-1", Service: "shop-api", AlertName: "burn", StartsAt: time.Now()},
		Decision: &contracts.DecisionV1{DecisionID: "d1", IncidentID: "inc-1", Service: "shop-api", Verdict: contracts.VerdictDeny,
			Checks: []contracts.CheckResult{{Name: contracts.CheckSLOBreach, Passed: false, Reason: "<script>alert(1)</script>"}}},
	}
	b, err := json.Marshal(src)
	require.NoError(t, err)
	_, err = kv.Put(ctx, "inc-1", b)
	require.NoError(t, err)

	bk, err := f.Connect(ctx, "bridge")
	require.NoError(t, err)
	rkv, err := bk.KeyValue(ctx, topology.BucketReports)
	require.NoError(t, err)
	h, err := kvReports{rkv}.HTML(ctx, "inc-1")
	require.NoError(t, err)
	require.Contains(t, string(h), "Findings")
	// The console page shows the title and the gate's checks itself, once.
	require.NotContains(t, string(h), "Incident inc-1")
	require.NotContains(t, string(h), "Policy gate")
	require.NotContains(t, string(h), "<script>")
	require.NotContains(t, string(h), "<html", "a fragment, not a page")

	_, err = kvReports{rkv}.HTML(ctx, "inc-unknown")
	require.Error(t, err)
}
