package natsport_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	evstore "agentk/platform/evidence"
)

// evidenceKV is a fake agentk_evidence: envelopes by digest, or one error
// for every read.
type evidenceKV struct {
	vals map[string][]byte
	err  error
}

func (s evidenceKV) Get(_ context.Context, key string) (jetstream.KeyValueEntry, error) {
	if s.err != nil {
		return nil, s.err
	}
	v, ok := s.vals[key]
	if !ok {
		return nil, jetstream.ErrKeyNotFound
	}
	return entry{v: v, rev: 1}, nil
}

// TestHandleReportResolvesEvidenceByReference: a report that names its
// evidence by {id, digest} is reviewed on the envelopes stored under those
// digests; a claim citing evidence that is missing or not the envelope its
// reference names is dropped, and an unreadable store reviews nothing.
func TestHandleReportResolvesEvidenceByReference(t *testing.T) {
	t.Parallel()
	k, h, _ := setup(t)
	stored := map[string][]byte{}
	ref := func(ev contracts.EvidenceV1, store bool) contracts.EvidenceRef {
		raw := k.seal(t, envelope.RoleSandbox, contracts.SubjectEvidence, ev, 0)
		env, err := envelope.Parse(raw)
		require.NoError(t, err)
		r := contracts.RefTo(ev.ID, env)
		if store {
			stored[r.Digest] = raw
		}
		return r
	}
	good := ref(evidence("ev-1", "inv-1"), true)
	missing := ref(evidence("ev-missing", "inv-1"), false)
	// The investigation saw p95 2312 ms; stored under its digest is another
	// sandbox-signed record of the same id that says 9900 ms.
	swapped := ref(evidence("ev-swapped", "inv-1"), true)
	other := evidence("ev-swapped", "inv-1")
	other.Compact = `{"p95_ms":9900,"requests":1018}`
	stored[swapped.Digest] = k.seal(t, envelope.RoleSandbox, contracts.SubjectEvidence, other, 0)

	alert := k.seal(t, envelope.RoleIngester, contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-1", Service: "shop-api", Status: contracts.AlertFiring}, 0)
	rep := contracts.ReportV1{InvestigationID: "inv-1", IncidentID: "inc-1", Service: "shop-api", Investigator: "llm", Completed: true,
		Alert: alert, EvidenceRefs: []contracts.EvidenceRef{good, missing, swapped}, Claims: []contracts.Claim{
			{ID: "c1", Class: "retry_storm", Statement: "p95 rose to 2.3s over 1,018 requests", Confidence: 0.8, EvidenceIDs: []string{"ev-1"}},
			{ID: "c2", Class: "retry_storm", Statement: "p95 rose to 2.3s", Confidence: 0.9, EvidenceIDs: []string{"ev-missing"}},
			{ID: "c3", Class: "retry_storm", Statement: "p95 rose to 9.9s", Confidence: 0.95, EvidenceIDs: []string{"ev-swapped"}},
		}}
	msg := bus.Message{Data: k.seal(t, envelope.RoleInvestigator, contracts.SubjectReport, rep, 0), Delivery: 1}

	h.Evidence = evstore.NewResolver(k.ring, evidenceKV{vals: stored})
	outs, err := h.HandleReport(context.Background(), msg)
	require.ErrorIs(t, err, evstore.ErrMissing, "on an early delivery a missing reference may be a replica behind the write")
	require.False(t, bus.IsPermanent(err))
	require.Empty(t, outs)

	msg.Delivery = evstore.MissingDeliveries
	outs, err = h.HandleReport(context.Background(), msg)
	require.NoError(t, err)
	require.Len(t, outs, 1)
	var rv contracts.ReviewV1
	_, err = k.ring.Open(outs[0].Envelope.Marshal(), contracts.SubjectReview, tNow, &rv)
	require.NoError(t, err)
	require.Len(t, rv.Kept, 1, "%+v", rv.Dropped)
	require.Equal(t, "c1", rv.Best.ID)
	reasons := map[string]string{}
	for _, d := range rv.Dropped {
		reasons[d.Claim.ID] = strings.Join(d.Reasons, "; ")
	}
	require.Contains(t, reasons["c2"], evstore.ErrMissing.Error())
	require.Contains(t, reasons["c3"], evstore.ErrMismatch.Error())
	require.Equal(t, rep.EvidenceRefs, rv.EvidenceRefs, "the references pass through to the gate")
	require.Empty(t, rv.Evidence)

	_, h2, _ := setup(t)
	h2.Keyring, h2.Signer = k.ring, k.signers[envelope.RoleReviewer]
	h2.Evidence = evstore.NewResolver(k.ring, evidenceKV{err: errors.New("nats: timeout")})
	outs, err = h2.HandleReport(context.Background(), msg)
	require.ErrorIs(t, err, evstore.ErrStore)
	require.False(t, bus.IsPermanent(err), "redelivered, not dead-lettered at once")
	require.Empty(t, outs)
}
