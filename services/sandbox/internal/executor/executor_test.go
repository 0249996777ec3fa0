package executor

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
)

func signer(t *testing.T) *envelope.Signer {
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	seed, err := kp.Seed()
	require.NoError(t, err)
	s, err := envelope.NewSigner(seed)
	require.NoError(t, err)
	return s
}

type fakeQuerier struct{ err error }

func (f fakeQuerier) QueryRange(context.Context, signoz.QueryRangeRequest) (signoz.Result, error) {
	if f.err != nil {
		return signoz.Result{}, f.err
	}
	body := []byte(`{"status":"success","data":{"type":"raw","data":{"results":[{"queryName":"A","rows":[{"timestamp":"2026-11-04T10:05:00Z","data":{"name":"deployment.marker","service.name":"shop-api","deployment.version":"v2","trace_id":"t","span_id":"s"}}]}]}}}`)
	r, err := signoz.Decode(body)
	return signoz.Result{Body: body, Response: r}, err
}

type fakeRecorder struct {
	got []envelope.Envelope
	err error
}

func (f *fakeRecorder) RecordEvidence(_ context.Context, env envelope.Envelope, id string) error {
	if f.err != nil {
		return f.err
	}
	f.got = append(f.got, env)
	return nil
}

func TestHandle(t *testing.T) {
	t.Parallel()
	ing, inv, sbx, stranger := signer(t), signer(t), signer(t), signer(t)
	kr, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: ing.KeyID(), Role: envelope.RoleIngester},
		envelope.KeyEntry{KeyID: inv.KeyID(), Role: envelope.RoleInvestigator},
		envelope.KeyEntry{KeyID: sbx.KeyID(), Role: envelope.RoleSandbox})
	require.NoError(t, err)
	startsAt := time.Date(2026, 11, 4, 10, 10, 0, 0, time.UTC)
	now := startsAt.Add(10 * time.Minute)
	alertBy := func(s *envelope.Signer) json.RawMessage {
		env, err := s.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-1", Service: "shop-api", StartsAt: startsAt}, now, 0)
		require.NoError(t, err)
		return env.Marshal()
	}
	call := func(s *envelope.Signer, alert json.RawMessage, args string) []byte {
		env, err := s.SealJSON(contracts.SubjectToolCall, contracts.ToolCallV1{CallID: "c1", InvestigationID: "inv-1", IncidentID: "inc-1",
			Tool: contracts.ToolDeploymentMarkers, Arguments: json.RawMessage(args), Alert: alert}, now, 0)
		require.NoError(t, err)
		return env.Marshal()
	}
	good := call(inv, alertBy(ing), `{"service":"shop-api"}`)
	tests := []struct {
		name      string
		data      []byte
		q         fakeQuerier
		recErr    error
		maxCalls  int
		ok        bool
		retryable bool
		errText   string
	}{
		{name: "evidence recorded then replied", data: good, maxCalls: 5, ok: true},
		{name: "call not from the investigator", data: call(stranger, alertBy(ing), `{"service":"shop-api"}`), maxCalls: 5, errText: "not a valid investigator-signed"},
		{name: "alert not from the ingester", data: call(inv, alertBy(inv), `{"service":"shop-api"}`), maxCalls: 5, errText: "not ingester-signed"},
		{name: "bad arguments", data: call(inv, alertBy(ing), `{"service":"shop-api","from":"2020-01-01T00:00:00Z","to":"2020-01-01T01:00:00Z"}`), maxCalls: 5, errText: "does not overlap"},
		{name: "budget", data: good, maxCalls: 0, errText: "used all 0 tool calls"},
		{name: "signoz down is retryable", data: good, q: fakeQuerier{err: signoz.ErrUnavailable}, maxCalls: 5, retryable: true, errText: "SigNoz query failed: SigNoz unreachable: "},
		{name: "signoz refusing the key says so", data: good, q: fakeQuerier{err: &signoz.APIError{HTTPStatus: 401, Message: "unauthenticated"}}, maxCalls: 5, errText: "SigNoz query failed: SigNoz rejected the API key: signoz: HTTP 401"},
		{name: "not recorded, not answered", data: good, recErr: errors.New("jetstream down"), maxCalls: 5, retryable: true, errText: "could not record"},
		{name: "garbage", data: []byte("{"), maxCalls: 5, errText: "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &fakeRecorder{err: tt.recErr}
			ex := &Executor{Keyring: kr, Signer: sbx, Query: tt.q, Record: rec, Now: func() time.Time { return now },
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: tools.DefaultLimits(nil),
				Compact: compact.DefaultLimits, LinkBase: "http://localhost:8080", MaxCalls: tt.maxCalls}
			env, err := ex.Handle(context.Background(), tt.data)
			require.NoError(t, err)
			var reply contracts.ToolReplyV1
			_, err = kr.Open(env.Marshal(), contracts.SubjectToolReply, now, &reply)
			require.NoError(t, err)
			require.Equal(t, tt.ok, reply.OK, reply.Error)
			require.Equal(t, tt.retryable, reply.Retryable)
			if parsed, perr := envelope.Parse(tt.data); perr == nil {
				// The bus hands the sandbox the envelope it parsed: the same answer.
				again := &Executor{Keyring: kr, Signer: sbx, Query: tt.q, Record: &fakeRecorder{err: tt.recErr}, Now: ex.Now,
					Logger: ex.Logger, Limits: ex.Limits, Compact: ex.Compact, LinkBase: ex.LinkBase, MaxCalls: tt.maxCalls}
				ar, err := again.HandleEnvelope(context.Background(), parsed)
				require.NoError(t, err)
				var areply contracts.ToolReplyV1
				_, err = kr.Open(ar.Envelope.Marshal(), contracts.SubjectToolReply, now, &areply)
				require.NoError(t, err)
				require.Equal(t, areply, ar.Value, "the reply beside its envelope is what was sealed")
				require.Equal(t, areply.OK, ar.Evidence != nil, "evidence beside a successful reply")
				require.Equal(t, reply.OK, areply.OK)
				require.Equal(t, reply.Error, areply.Error)
				require.Equal(t, reply.Retryable, areply.Retryable)
			}
			if !tt.ok {
				require.Contains(t, reply.Error, tt.errText)
				require.Empty(t, rec.got)
				return
			}
			require.Len(t, rec.got, 1, "recorded before the reply")
			var ev contracts.EvidenceV1
			_, err = kr.Open(reply.Evidence, contracts.SubjectEvidence, now, &ev)
			require.NoError(t, err)
			require.Equal(t, rec.got[0].Marshal(), []byte(reply.Evidence))
			require.Equal(t, "inv-1", ev.InvestigationID)
			require.True(t, ev.Facts.MarkerQuery)
			require.Len(t, ev.Facts.DeploymentMarkers, 1)
			require.Len(t, ev.RawSHA256, 64)
			require.Regexp(t, `^ev-[0-9a-f]{24}$`, ev.ID)
		})
	}
}
