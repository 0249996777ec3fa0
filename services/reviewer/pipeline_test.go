package reviewer_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/report"
	"agentk/platform/service"
	"agentk/services/gate"
	"agentk/services/reviewer"
)

// TestReportToDecisionOverNATS runs the reviewer and the gate on an embedded
// NATS fabric: an investigator-signed report goes in, and the gate's decision
// comes back into the stored incident report.
func TestReportToDecisionOverNATS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an embedded NATS server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: log})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })

	now := time.Now().UTC()
	clock := func() time.Time { return time.Now().UTC() }
	env := map[string]string{"AGENTK_SANDBOX_SERVICES": "shop-api"}
	getenv := func(k string) string { return env[k] }
	errc := make(chan error, 2)
	for role, run := range map[string]func(context.Context, service.Deps) error{
		envelope.RoleReviewer: reviewer.Run, envelope.RoleGate: gate.Run,
	} {
		d, err := f.Deps(ctx, role, clock, getenv)
		require.NoError(t, err)
		ready := make(chan struct{})
		d.Ready = func() { close(ready) }
		go func() { errc <- run(ctx, d) }()
		select {
		case <-ready:
		case err := <-errc:
			t.Fatalf("%s: %v", role, err)
		case <-ctx.Done():
			t.Fatalf("%s never became ready", role)
		}
	}

	seal := func(role, subject string, v any) json.RawMessage {
		e, err := f.Signer(role).SealJSON(subject, v, now, 0)
		require.NoError(t, err)
		return e.Marshal()
	}
	onset, marker := now.Add(-15*time.Minute), now.Add(-20*time.Minute)
	ledger := contracts.ReleaseLedgerV1{Project: "shop", Service: "shop-api", Releases: []contracts.Release{
		{Version: "v1", Image: "agentk-demo/shop-api:v1", DeployedAt: marker.Add(-48 * time.Hour)},
		{Version: "v2", Image: "agentk-demo/shop-api:v2", DeployedAt: marker}}}
	dep, err := f.Connect(ctx, envelope.RoleDeployer)
	require.NoError(t, err)
	kv, err := dep.KeyValue(ctx, "agentk_releases")
	require.NoError(t, err)
	_, err = kv.Put(ctx, "shop-api", seal(envelope.RoleDeployer, contracts.SubjectLedger, ledger))
	require.NoError(t, err)

	const hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	ev := []json.RawMessage{
		seal(envelope.RoleSandbox, contracts.SubjectEvidence, contracts.EvidenceV1{ID: "ev-1", InvestigationID: "inv-1", Service: "shop-api",
			Tool: contracts.ToolServiceOverview, From: now.Add(-2 * time.Hour), To: now, RawSHA256: hash,
			Link: "http://localhost:8080/services/shop-api", Compact: `{"p95_ms":2312}`, Facts: contracts.Facts{Onset: &onset,
				// The release comparison a bad_release rollback needs: v2's
				// entry spans fail with a signature no error had before v2.
				Release: &contracts.ReleaseErrors{Version: "v2", FirstSeen: marker, HistoryMinutes: 60,
					Requests: 200, Errors: 80, NewSignature: "panic: runtime error", NewErrors: 78,
					// The previous version stopped serving at the deploy.
					OtherVersions: &contracts.OtherVersionErrors{HistoryRequests: 2400, HistoryErrors: 3}}}}),
		seal(envelope.RoleSandbox, contracts.SubjectEvidence, contracts.EvidenceV1{ID: "ev-2", InvestigationID: "inv-1", Service: "shop-api",
			Tool: contracts.ToolDeploymentMarkers, From: now.Add(-2 * time.Hour), To: now, RawSHA256: hash,
			Link: "http://localhost:8080/traces-explorer", Facts: contracts.Facts{MarkerQuery: true,
				DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v2", At: marker}}}}),
	}
	rep := contracts.ReportV1{InvestigationID: "inv-1", IncidentID: "inc-1", Service: "shop-api", Investigator: "rules", Completed: true,
		Alert: seal(envelope.RoleIngester, contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-1", Status: contracts.AlertFiring,
			Service: "shop-api", BurnRate: 6, BurnRateSource: "labels.burn_rate", Labels: map[string]string{"burn_rate": "6"}}),
		Evidence: ev,
		Claims:   []contracts.Claim{{ID: "c1", Class: "bad_release", Statement: "p95 rose to 2.3s after v2", Confidence: 0.9, EvidenceIDs: []string{"ev-1", "ev-2"}}}}
	inv, err := f.Connect(ctx, envelope.RoleInvestigator)
	require.NoError(t, err)
	e, err := f.Signer(envelope.RoleInvestigator).SealJSON(contracts.SubjectReport, rep, now, 0)
	require.NoError(t, err)
	require.NoError(t, inv.Publish(ctx, contracts.SubjectReport, bus.Out{Envelope: e, MsgID: "inv-1"}, nil))

	rev, err := f.Connect(ctx, envelope.RoleReviewer)
	require.NoError(t, err)
	reports, err := rev.KeyValue(ctx, "agentk_reports")
	require.NoError(t, err)
	watch, err := reports.Watch(ctx, "inc-1")
	require.NoError(t, err)
	defer func() { _ = watch.Stop() }()
	for {
		select {
		case u := <-watch.Updates():
			if u == nil {
				continue
			}
			r, err := report.Decode(u.Value())
			require.NoError(t, err)
			if r.Decision == nil {
				continue
			}
			require.Equal(t, contracts.VerdictAllow, r.Decision.Verdict, "%+v", r.Decision.Checks)
			require.Equal(t, report.StatusAwaitingApproval, r.Status)
			require.Equal(t, "agentk-demo/shop-api:v1", r.Decision.RollbackTarget)
			return
		case err := <-errc:
			t.Fatalf("service stopped: %v", err)
		case <-ctx.Done():
			t.Fatal("no decision reached the stored report")
		}
	}
}
