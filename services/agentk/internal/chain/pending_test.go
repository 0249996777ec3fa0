package chain

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/identity"

	"github.com/stretchr/testify/require"
)

func signed(t *testing.T, s *envelope.Signer, subject string, v any, now time.Time) Msg {
	e, err := s.SealJSON(subject, v, now, time.Hour)
	require.NoError(t, err)
	return Msg{Subject: subject, Data: e.Marshal()}
}

func TestPendingDecisions(t *testing.T) {
	t.Parallel()
	ids, err := identity.Ensure(t.TempDir())
	require.NoError(t, err)
	kr, err := ids.Keyring()
	require.NoError(t, err)
	gate, err := ids.Signer(envelope.RoleGate)
	require.NoError(t, err)
	bridge, err := ids.Signer(envelope.RoleBridge)
	require.NoError(t, err)
	ingester, err := ids.Signer(envelope.RoleIngester)
	require.NoError(t, err)
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	dec := func(id, verdict string, shadow bool, expires time.Duration) contracts.DecisionV1 {
		return contracts.DecisionV1{DecisionID: id, IncidentID: "inc-" + id, Service: "shop-api", Action: "rollback", Verdict: verdict, Shadow: shadow,
			RollbackTarget: "shop-api:v1", Confidence: 0.9, DecidedAt: now.Add(-time.Minute), ExpiresAt: now.Add(expires)}
	}
	msgs := []Msg{
		signed(t, gate, contracts.SubjectDecision, dec("later", contracts.VerdictAllow, false, 10*time.Minute), now),
		signed(t, gate, contracts.SubjectDecision, dec("pending", contracts.VerdictAllow, false, 5*time.Minute), now),
		signed(t, gate, contracts.SubjectDecision, dec("denied-by-gate", contracts.VerdictDeny, false, 5*time.Minute), now),
		signed(t, gate, contracts.SubjectDecision, dec("shadow", contracts.VerdictAllow, true, 5*time.Minute), now),
		signed(t, gate, contracts.SubjectDecision, dec("expired", contracts.VerdictAllow, false, -time.Second), now),
		signed(t, gate, contracts.SubjectDecision, dec("answered", contracts.VerdictAllow, false, 5*time.Minute), now),
		signed(t, bridge, contracts.SubjectApproval, contracts.ApprovalV1{ApprovalID: "apr-1", DecisionID: "answered", Answer: "deny"}, now),
		// Forged: an allowed decision signed by the ingester, and an
		// "answer" signed by the gate, are neither.
		signed(t, ingester, contracts.SubjectDecision, dec("forged", contracts.VerdictAllow, false, 5*time.Minute), now),
		signed(t, gate, contracts.SubjectApproval, contracts.ApprovalV1{ApprovalID: "apr-2", DecisionID: "later", Answer: "approve"}, now),
	}
	var got []string
	for _, p := range Pending(kr, msgs, now) {
		got = append(got, p.DecisionID)
	}
	require.Equal(t, []string{"pending", "later"}, got)

	// A derived decision (issue 33) is pending like any other and names
	// the alerted service and why.
	derived := dec("pending.origin.payment", contracts.VerdictAllow, false, 5*time.Minute)
	derived.Service = "payment"
	derived.Origin = &contracts.DecisionOrigin{AlertedService: "shop-api", Reason: "shop-api burns its budget; 71% of its new failures begin in payment"}
	rows := Pending(kr, []Msg{signed(t, gate, contracts.SubjectDecision, derived, now)}, now)
	require.Len(t, rows, 1)
	require.Equal(t, "payment", rows[0].Service)
	require.Equal(t, "shop-api", rows[0].AlertedService)
	require.Equal(t, derived.Origin.Reason, rows[0].Why)
}
