package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/command/commandtest"
	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/topology"

	"github.com/stretchr/testify/require"
)

// TestDeadLettersListsWhatAHandlerSetAside: a review the gate cannot
// process is dead-lettered by the router; `agentk deadletters` lists it with
// its subject, reason, time and incident id, and escapes the hostile text
// its error quotes, so a dead letter cannot forge a row.
func TestDeadLettersListsWhatAHandlerSetAside(t *testing.T) {
	t.Setenv("AGENTK_OTEL_DISABLED", "1")
	data := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: data, Port: 0})
	require.NoError(t, err)
	gate, err := f.Connect(ctx, envelope.RoleGate)
	require.NoError(t, err)
	rev, err := f.Connect(ctx, envelope.RoleReviewer)
	require.NoError(t, err)
	r, err := gate.NewRouter(nil)
	require.NoError(t, err)
	r.Handle("gate", contracts.SubjectReview, func(context.Context, bus.Message) ([]bus.Out, error) {
		return nil, bus.Permanent(errors.New("service \"shop\x1b[2K\rINFO forged\" refused"))
	})
	rctx, rcancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- r.Run(rctx) }()
	<-r.Running()
	env, err := f.Signer(envelope.RoleReviewer).SealJSON(contracts.SubjectReview, map[string]string{"incident_id": "inc-shop-api-0123456789abcdef"}, time.Now(), 0)
	require.NoError(t, err)
	require.NoError(t, rev.Publish(ctx, contracts.SubjectReview, bus.Out{Envelope: env, MsgID: "review.1"}, nil))
	adm, err := f.Admin(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		st, err := adm.JetStream().Stream(ctx, topology.DLQStream)
		if err != nil {
			return false
		}
		info, err := st.Info(ctx)
		return err == nil && info.State.Msgs == 1
	}, 20*time.Second, 20*time.Millisecond)
	rcancel()
	require.NoError(t, <-errc)
	_ = adm.Close()
	_ = gate.Close()
	_ = rev.Close()
	require.NoError(t, f.Close())

	env2 := map[string]string{"AGENTK_DATA_DIR": data, "AGENTK_NATS_PORT": "0"}
	c, out, errb := commandtest.New(env2)
	require.Equal(t, 0, command.Run(ctx, c, []string{"deadletters", "--json"}), errb.String())
	var d bus.DeadLetter
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(out.Bytes()), &d))
	require.Equal(t, contracts.SubjectReview, d.Subject)
	require.Equal(t, "permanent", d.Reason)
	require.Equal(t, "gate", d.Handler)
	require.Equal(t, "inc-shop-api-0123456789abcdef", d.IncidentID)
	require.WithinDuration(t, time.Now(), d.At, time.Minute)
	require.Contains(t, d.Error, "refused")

	c, out, errb = commandtest.New(env2)
	require.Equal(t, 0, command.Run(ctx, c, []string{"deadletters"}), errb.String())
	text := out.String()
	require.Contains(t, text, "agentk.review.v1")
	require.Contains(t, text, "inc-shop-api-0123456789abcdef")
	require.Contains(t, text, `\x1b[2K`)
	require.NotContains(t, text, "\x1b")
	require.Equal(t, 2, bytes.Count(out.Bytes(), []byte("\n")), "a header and one row: nothing forged")
}
