package natsport_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/report"
	"agentk/platform/topology"
	"agentk/services/reviewer/internal/natsport"
	"agentk/services/reviewer/internal/review"
)

var tNow = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

const rawHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

type keys struct {
	signers map[string]*envelope.Signer
	ring    *envelope.Keyring
}

func newKeys(t *testing.T) keys {
	k := keys{signers: map[string]*envelope.Signer{}}
	var entries []envelope.KeyEntry
	for _, role := range envelope.Roles {
		kp, err := nkeys.CreateUser()
		require.NoError(t, err)
		seed, _ := kp.Seed()
		s, err := envelope.NewSigner(seed)
		require.NoError(t, err)
		k.signers[role] = s
		entries = append(entries, envelope.KeyEntry{KeyID: s.KeyID(), Role: role})
	}
	var err error
	k.ring, err = envelope.NewKeyring(entries...)
	require.NoError(t, err)
	return k
}

func (k keys) seal(t *testing.T, role, subject string, v any, ttl time.Duration) []byte {
	e, err := k.signers[role].SealJSON(subject, v, tNow.Add(-time.Minute), ttl)
	require.NoError(t, err)
	return e.Marshal()
}

type entry struct {
	v   []byte
	rev uint64
}

func (e entry) Bucket() string                  { return topology.BucketReports }
func (e entry) Key() string                     { return "" }
func (e entry) Value() []byte                   { return e.v }
func (e entry) Revision() uint64                { return e.rev }
func (e entry) Created() time.Time              { return time.Time{} }
func (e entry) Delta() uint64                   { return 0 }
func (e entry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }

// store is an in-memory KV with revisions and compare-and-set.
type store struct {
	mu   sync.Mutex
	vals map[string]entry
}

func (s *store) Get(_ context.Context, key string) (jetstream.KeyValueEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.vals[key]
	if !ok {
		return nil, jetstream.ErrKeyNotFound
	}
	return e, nil
}

func (s *store) Create(_ context.Context, key string, v []byte, _ ...jetstream.KVCreateOpt) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.vals[key]; ok {
		return 0, jetstream.ErrKeyExists
	}
	s.vals[key] = entry{v, 1}
	return 1, nil
}

func (s *store) Update(_ context.Context, key string, v []byte, rev uint64) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vals[key].rev != rev {
		return 0, jetstream.ErrKeyRevisionMismatch
	}
	s.vals[key] = entry{v, rev + 1}
	return rev + 1, nil
}

func (s *store) report(t *testing.T, key string) report.Report {
	e, err := s.Get(context.Background(), key)
	require.NoError(t, err)
	r, err := report.Decode(e.Value())
	require.NoError(t, err)
	return r
}

func evidence(id, inv string) contracts.EvidenceV1 {
	return contracts.EvidenceV1{ID: id, InvestigationID: inv, IncidentID: "inc-1", Service: "shop-api", Tool: contracts.ToolServiceOverview,
		RawSHA256: rawHash, Link: "http://localhost:8080/services/shop-api", Compact: `{"p95_ms":2312,"requests":1018}`}
}

func setup(t *testing.T) (keys, *natsport.Handler, *store) {
	k := newKeys(t)
	base, _ := url.Parse("http://localhost:8080")
	st := &store{vals: map[string]entry{}}
	h := &natsport.Handler{Keyring: k.ring, Signer: k.signers[envelope.RoleReviewer], Now: func() time.Time { return tNow },
		Config:  review.Config{BaseURL: base, Tolerance: 0.01, Catalogue: contracts.DefaultCatalogue()},
		Reports: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return k, h, st
}

func TestHandleReport(t *testing.T) {
	t.Parallel()
	k, h, st := setup(t)
	alert := k.seal(t, envelope.RoleIngester, contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-1", Service: "shop-api", Status: contracts.AlertFiring}, 0)
	evs := []json.RawMessage{
		k.seal(t, envelope.RoleSandbox, contracts.SubjectEvidence, evidence("ev-1", "inv-1"), 0),
		k.seal(t, envelope.RoleSandbox, contracts.SubjectEvidence, evidence("ev-old", "inv-0"), 0),
		k.seal(t, envelope.RoleInvestigator, contracts.SubjectEvidence, evidence("ev-forged", "inv-1"), 0),
	}
	rep := contracts.ReportV1{InvestigationID: "inv-1", IncidentID: "inc-1", Service: "shop-api", Investigator: "llm", Completed: true,
		Alert: alert, Evidence: evs, Claims: []contracts.Claim{
			{ID: "c1", Class: "retry_storm", Statement: "p95 rose to 2.3s over 1,018 requests", Confidence: 0.8, EvidenceIDs: []string{"ev-1"}},
			{ID: "c2", Class: "retry_storm", Statement: "p95 rose to 2.3s", Confidence: 0.9, EvidenceIDs: []string{"ev-old"}},
			{ID: "c3", Class: "retry_storm", Statement: "p95 rose to 2.3s", Confidence: 0.95, EvidenceIDs: []string{"ev-forged"}},
			{ID: "c4", Class: "retry_storm", Statement: "p95 rose to 9.9s", Confidence: 0.99, EvidenceIDs: []string{"ev-1"}},
		}}
	outs, err := h.HandleReport(context.Background(), bus.Message{Data: k.seal(t, envelope.RoleInvestigator, contracts.SubjectReport, rep, 0)})
	require.NoError(t, err)
	require.Len(t, outs, 1)
	require.Equal(t, "review.inv-1", outs[0].MsgID)

	var rv contracts.ReviewV1
	_, err = k.ring.Open(outs[0].Envelope.Marshal(), contracts.SubjectReview, tNow, &rv)
	require.NoError(t, err)
	require.Len(t, rv.Kept, 1, "%+v", rv.Dropped)
	require.Equal(t, "c1", rv.Best.ID)
	require.Len(t, rv.Dropped, 3)
	reasons := map[string]string{}
	for _, d := range rv.Dropped {
		reasons[d.Claim.ID] = strings.Join(d.Reasons, "; ")
	}
	require.Contains(t, reasons["c2"], `recorded for investigation "inv-0"`)
	require.Contains(t, reasons["c3"], "not the sandbox's record")
	require.Contains(t, reasons["c4"], "number 9.9s")
	require.Equal(t, string(alert), string(rv.Alert), "the alert envelope passes through unchanged")
	require.Len(t, rv.Evidence, 3)

	r := st.report(t, "inc-1")
	require.Equal(t, report.StatusNeedsHuman, r.Status)
	require.Len(t, r.Kept, 1)
	require.Equal(t, "http://localhost:8080/services/shop-api", r.Kept[0].Evidence[0].Link)

	// The gate's decision, an approval and the action arrive; the decision has
	// expired by the time it is recorded, and is still part of the history.
	dec := contracts.DecisionV1{DecisionID: "decision.review.inv-1", IncidentID: "inc-1", Verdict: contracts.VerdictAllow, Checks: []contracts.CheckResult{{Name: "slo_breach", Passed: true}}}
	decEnv, err := k.signers[envelope.RoleGate].SealJSON(contracts.SubjectDecision, dec, tNow.Add(-time.Hour), 15*time.Minute)
	require.NoError(t, err)
	_, err = h.HandleDecision(context.Background(), bus.Message{Data: decEnv.Marshal()})
	require.NoError(t, err)
	require.Equal(t, report.StatusAwaitingApproval, st.report(t, "inc-1").Status)

	// A derived decision (issue 33) about another service sits beside the
	// alerted service's decision, never over it.
	derived := contracts.DecisionV1{DecisionID: "decision.review.inv-1.origin.payment", IncidentID: "inc-1", Service: "payment", Verdict: contracts.VerdictDeny,
		Origin: &contracts.DecisionOrigin{AlertedService: "shop-api", Reason: "shop-api burns its budget; 30% of its new failures begin in payment"}}
	derEnv, err := k.signers[envelope.RoleGate].SealJSON(contracts.SubjectDecision, derived, tNow.Add(-time.Hour), 15*time.Minute)
	require.NoError(t, err)
	_, err = h.HandleDecision(context.Background(), bus.Message{Data: derEnv.Marshal()})
	require.NoError(t, err)
	withDerived := st.report(t, "inc-1")
	require.Equal(t, "decision.review.inv-1", withDerived.Decision.ID)
	require.Equal(t, "decision.review.inv-1.origin.payment", withDerived.Derived.ID)
	require.Equal(t, report.StatusAwaitingApproval, withDerived.Status)

	_, err = h.HandleApproval(context.Background(), bus.Message{Data: k.seal(t, envelope.RoleBridge, contracts.SubjectApproval,
		contracts.ApprovalV1{IncidentID: "inc-1", Answer: contracts.AnswerApprove, Approver: "alice"}, time.Minute)})
	require.NoError(t, err)
	yes := true
	_, err = h.HandleAction(context.Background(), bus.Message{Data: k.seal(t, envelope.RoleDeployer, contracts.SubjectAction,
		contracts.ActionV1{IncidentID: "inc-1", Outcome: contracts.OutcomeRolledBack, Recovered: &yes}, 0)})
	require.NoError(t, err)
	r = st.report(t, "inc-1")
	require.Equal(t, report.StatusRecovered, r.Status)
	require.Equal(t, "alice", r.Approval.Approver)
	require.Len(t, r.Kept, 1, "later updates keep the review")
}

func TestHandleRejectsForgedMessages(t *testing.T) {
	t.Parallel()
	k, h, st := setup(t)
	cases := []struct {
		name string
		call bus.HandlerFunc
		data []byte
	}{
		{"report signed by the sandbox", h.HandleReport, k.seal(t, envelope.RoleSandbox, contracts.SubjectReport, contracts.ReportV1{InvestigationID: "i", IncidentID: "inc-x"}, 0)},
		{"decision signed by the reviewer", h.HandleDecision, k.seal(t, envelope.RoleReviewer, contracts.SubjectDecision, contracts.DecisionV1{IncidentID: "inc-x"}, 0)},
		{"approval signed by the gate", h.HandleApproval, k.seal(t, envelope.RoleGate, contracts.SubjectApproval, contracts.ApprovalV1{IncidentID: "inc-x"}, 0)},
		{"action signed by the bridge", h.HandleAction, k.seal(t, envelope.RoleBridge, contracts.SubjectAction, contracts.ActionV1{IncidentID: "inc-x"}, 0)},
	}
	for _, tc := range cases {
		outs, err := tc.call(context.Background(), bus.Message{Data: tc.data})
		require.Empty(t, outs, tc.name)
		require.ErrorIs(t, err, natsport.ErrRejected, tc.name)
		require.True(t, bus.IsPermanent(err), tc.name)
	}
	_, err := st.Get(context.Background(), "inc-x")
	require.ErrorIs(t, err, jetstream.ErrKeyNotFound, "nothing forged reaches the report")
}

// TestUnsafeIncidentIDIsNeverAKVKey: an incident id the protocol cannot
// carry as a KV key (100 KB, a NUL) is dead-lettered before any KV call,
// instead of costing the reviewer its connection (issue 19).
func TestUnsafeIncidentIDIsNeverAKVKey(t *testing.T) {
	t.Parallel()
	k, h, _ := setup(t)
	for _, id := range []string{strings.Repeat("i", 100<<10), "inc-\x00", "inc.*"} {
		data := k.seal(t, envelope.RoleGate, contracts.SubjectDecision, contracts.DecisionV1{DecisionID: "d", IncidentID: id}, 0)
		_, err := h.HandleDecision(context.Background(), bus.Message{Data: data})
		require.ErrorIs(t, err, natsport.ErrRejected)
		require.True(t, bus.IsPermanent(err))
		require.ErrorIs(t, err, bus.ErrContent)
	}
}
