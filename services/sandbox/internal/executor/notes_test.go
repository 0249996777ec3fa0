package executor

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// notedQuerier answers like the official MCP server in front of a SigNoz
// that cut the answer: a next page (nextCursor) and a warnings note.
type notedQuerier struct{}

func (notedQuerier) QueryRange(context.Context, signoz.QueryRangeRequest) (signoz.Result, error) {
	body := []byte(`{"status":"success","data":{"type":"raw","data":{"results":[{"queryName":"A","nextCursor":"MTc5","rows":[{"timestamp":"2026-11-04T10:05:00Z","data":{"name":"deployment.marker","service.name":"shop-api","deployment.version":"v2","trace_id":"t","span_id":"s"}}]}]}}}`)
	r, err := signoz.Decode(body)
	return signoz.Result{Body: body, Response: r, Notes: []contracts.SourceNote{{Kind: contracts.NoteBackendWarnings, Text: "note: SigNoz backend returned non-fatal warnings:\n- key `x` not found"}}}, err
}

// TestEvidenceCarriesSourceNotes: the route's notes and every place SigNoz
// cut the answer are in the signed evidence, with the query they are about;
// no decision rests on a silently cut answer.
func TestEvidenceCarriesSourceNotes(t *testing.T) {
	t.Parallel()
	ing, inv, sbx := signer(t), signer(t), signer(t)
	kr, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: ing.KeyID(), Role: envelope.RoleIngester},
		envelope.KeyEntry{KeyID: inv.KeyID(), Role: envelope.RoleInvestigator},
		envelope.KeyEntry{KeyID: sbx.KeyID(), Role: envelope.RoleSandbox})
	require.NoError(t, err)
	startsAt := time.Date(2026, 11, 4, 10, 10, 0, 0, time.UTC)
	now := startsAt.Add(10 * time.Minute)
	alert, err := ing.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-1", Service: "shop-api", StartsAt: startsAt}, now, 0)
	require.NoError(t, err)
	call, err := inv.SealJSON(contracts.SubjectToolCall, contracts.ToolCallV1{CallID: "c1", InvestigationID: "inv-1", IncidentID: "inc-1",
		Tool: contracts.ToolDeploymentMarkers, Arguments: json.RawMessage(`{"service":"shop-api"}`), Alert: alert.Marshal()}, now, 0)
	require.NoError(t, err)
	ex := &Executor{Keyring: kr, Signer: sbx, Query: notedQuerier{}, Record: &fakeRecorder{}, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: tools.DefaultLimits(nil),
		Compact: compact.DefaultLimits, LinkBase: "http://localhost:8080", MaxCalls: 5}
	env, err := ex.Handle(context.Background(), call.Marshal())
	require.NoError(t, err)
	var reply contracts.ToolReplyV1
	_, err = kr.Open(env.Marshal(), contracts.SubjectToolReply, now, &reply)
	require.NoError(t, err)
	require.True(t, reply.OK, reply.Error)
	var ev contracts.EvidenceV1
	_, err = kr.Open(reply.Evidence, contracts.SubjectEvidence, now, &ev)
	require.NoError(t, err)
	// The querier notes every query it answers: the markers query and the
	// environments' two optional ones each leave two notes.
	require.Len(t, ev.SourceNotes, 6)
	for i := 0; i < len(ev.SourceNotes); i += 2 {
		require.Equal(t, contracts.NoteBackendWarnings, ev.SourceNotes[i].Kind)
		require.Equal(t, contracts.NoteRowsCut, ev.SourceNotes[i+1].Kind)
		require.Contains(t, ev.SourceNotes[i+1].Text, "next page")
		require.NotEmpty(t, ev.SourceNotes[i+1].Query, "the note names its query")
	}
	require.Equal(t, "markers", ev.SourceNotes[1].Query, "the markers query first")
}
