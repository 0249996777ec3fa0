package chain

import (
	"encoding/json"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/wiring"
	"agentk/platform/identity"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 4, 10, 20, 0, 0, time.UTC)

// sealer seals messages with the keys of one identity set.
type sealer struct {
	t   *testing.T
	ids *identity.Set
}

func newSealer(t *testing.T) (sealer, *envelope.Keyring) {
	t.Helper()
	ids, err := identity.Ensure(t.TempDir())
	require.NoError(t, err)
	kr, err := ids.Keyring()
	require.NoError(t, err)
	return sealer{t: t, ids: ids}, kr
}

func (s sealer) env(role, subject string, v any) envelope.Envelope {
	s.t.Helper()
	sg, err := s.ids.Signer(role)
	require.NoError(s.t, err)
	e, err := sg.SealJSON(subject, v, t0, 15*time.Minute)
	require.NoError(s.t, err)
	return e
}

func (s sealer) msg(role, subject string, v any) Msg {
	return Msg{Subject: subject, Data: s.env(role, subject, v).Marshal()}
}

// chainOf is one incident's whole chain, each link signed by its producer
// unless signer names another role for a subject; edit changes the payloads
// before they are sealed.
func chainOf(s sealer, signer map[string]string, edit func(*contracts.ReviewV1, *contracts.DecisionV1, *contracts.ApprovalV1, *contracts.ActionV1)) []Msg {
	role := func(subject string) string {
		if r, ok := signer[subject]; ok {
			return r
		}
		return wiring.Producer(subject)
	}
	const inc = "inc-1"
	ev := s.env(role(contracts.SubjectEvidence), contracts.SubjectEvidence, contracts.EvidenceV1{IncidentID: inc, ID: "ev-1", Tool: "service_overview"})
	rv := contracts.ReviewV1{ReviewID: "rev-1", IncidentID: inc, Evidence: []json.RawMessage{ev.Marshal()}}
	d := contracts.DecisionV1{DecisionID: "dec-1", IncidentID: inc, ReviewID: "rev-1", Service: "shop-api", Action: "rollback",
		Verdict: contracts.VerdictAllow, DecidedAt: t0, ExpiresAt: t0.Add(15 * time.Minute)}
	ap := contracts.ApprovalV1{ApprovalID: "apr-1", DecisionID: "dec-1", IncidentID: inc, Answer: contracts.AnswerApprove, Approver: "alice", Channel: "slack"}
	ac := contracts.ActionV1{ActionID: "act-1", IncidentID: inc, DecisionID: "dec-1", ApprovalID: "apr-1", Outcome: contracts.OutcomeRolledBack}
	if edit != nil {
		edit(&rv, &d, &ap, &ac)
	}
	de := s.env(role(contracts.SubjectDecision), contracts.SubjectDecision, d)
	if ap.DecisionDigest == "" {
		ap.DecisionDigest = de.Digest()
	}
	if ap.Decision == nil {
		ap.Decision = de.Marshal()
	}
	return []Msg{
		s.msg(role(contracts.SubjectAlert), contracts.SubjectAlert, contracts.AlertV1{IncidentID: inc, AlertName: "burn", Service: "shop-api", Status: "firing"}),
		{Subject: contracts.SubjectEvidence, Data: ev.Marshal()},
		s.msg(role(contracts.SubjectReview), contracts.SubjectReview, rv),
		{Subject: contracts.SubjectDecision, Data: de.Marshal()},
		s.msg(role(contracts.SubjectApproval), contracts.SubjectApproval, ap),
		s.msg(role(contracts.SubjectAction), contracts.SubjectAction, ac),
	}
}

// broken lists the links of a report that did not hold.
func broken(r Report) []string {
	var out []string
	for _, l := range r.Links {
		if !l.OK {
			out = append(out, l.Link)
		}
	}
	return out
}

func TestAudit(t *testing.T) {
	t.Parallel()
	s, kr := newSealer(t)
	recorded, err := json.Marshal(contracts.EvidenceV1{IncidentID: "inc-1", ID: "ev-1", Tool: "service_overview"})
	require.NoError(t, err)
	byRef := func(digest string) func(*contracts.ReviewV1, *contracts.DecisionV1, *contracts.ApprovalV1, *contracts.ActionV1) {
		return func(r *contracts.ReviewV1, _ *contracts.DecisionV1, _ *contracts.ApprovalV1, _ *contracts.ActionV1) {
			r.Evidence, r.EvidenceRefs = nil, []contracts.EvidenceRef{{ID: "ev-1", Digest: digest}}
		}
	}
	cases := []struct {
		name     string
		signer   map[string]string
		edit     func(*contracts.ReviewV1, *contracts.DecisionV1, *contracts.ApprovalV1, *contracts.ActionV1)
		drop     string // a subject left out of the stream
		incident string
		broken   []string
		who      string // a substring of the broken link's Who
		unknown  bool
	}{
		{name: "the whole chain holds"},
		{name: "an approval signed by the investigator names its real key", signer: map[string]string{contracts.SubjectApproval: envelope.RoleInvestigator},
			broken: []string{"approval", "action"}, who: "signed by investigator key "},
		{name: "a review carrying evidence nobody recorded", drop: contracts.SubjectEvidence, broken: []string{"review", "decision", "approval", "action"}},
		{name: "a review naming recorded evidence by reference", edit: byRef(envelope.Digest(recorded))},
		{name: "a review naming evidence nobody recorded by reference", edit: byRef(envelope.Digest([]byte("{}"))),
			broken: []string{"review", "decision", "approval", "action"}},
		{name: "a decision bound to another review", edit: func(_ *contracts.ReviewV1, d *contracts.DecisionV1, _ *contracts.ApprovalV1, _ *contracts.ActionV1) {
			d.ReviewID = "rev-other"
		}, broken: []string{"decision", "approval", "action"}},
		{name: "an approval bound to another digest", edit: func(_ *contracts.ReviewV1, _ *contracts.DecisionV1, a *contracts.ApprovalV1, _ *contracts.ActionV1) {
			a.DecisionDigest = "0123456789abcdef"
		}, broken: []string{"approval", "action"}},
		{name: "an approval carrying other decision bytes", edit: func(_ *contracts.ReviewV1, _ *contracts.DecisionV1, a *contracts.ApprovalV1, _ *contracts.ActionV1) {
			a.Decision = json.RawMessage(`{}`)
		}, broken: []string{"approval", "action"}},
		{name: "an action on an approval nobody gave", edit: func(_ *contracts.ReviewV1, _ *contracts.DecisionV1, _ *contracts.ApprovalV1, a *contracts.ActionV1) {
			a.ApprovalID = "apr-never"
		}, broken: []string{"action"}},
		{name: "no alert recorded", drop: contracts.SubjectAlert, broken: []string{"alert"}},
		{name: "an incident nobody filed", incident: "inc-never", broken: []string{"alert", "review", "decision"}, unknown: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var msgs []Msg
			for _, m := range chainOf(s, tc.signer, tc.edit) {
				if m.Subject != tc.drop {
					msgs = append(msgs, m)
				}
			}
			inc := tc.incident
			if inc == "" {
				inc = "inc-1"
			}
			rep := Audit(kr, inc, msgs)
			require.Equal(t, tc.broken, broken(rep))
			require.Equal(t, len(tc.broken) == 0, rep.OK)
			require.Equal(t, tc.unknown, rep.Unknown())
			if tc.who != "" {
				for _, l := range rep.Links {
					if l.Link == tc.broken[0] {
						require.Contains(t, l.Who, tc.who)
					}
				}
			}
		})
	}
}

func TestAgreement(t *testing.T) {
	t.Parallel()
	cases := []struct{ verdict, human, want string }{
		{contracts.VerdictAllow, contracts.AnswerApprove, Agree},
		{contracts.VerdictAllow, contracts.AnswerDeny, AllowedDenied},
		{contracts.VerdictAllow, HumanNone, AwaitingAnswer},
		{contracts.VerdictDeny, contracts.AnswerApprove, DeniedApproved},
		{contracts.VerdictDeny, HumanNone, Agree},
		{"unknown-verdict", contracts.AnswerApprove, DeniedApproved},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, Agreement(tc.verdict, tc.human), "%s/%s", tc.verdict, tc.human)
	}
}

func TestShadow(t *testing.T) {
	t.Parallel()
	s, kr := newSealer(t)
	shadow := func(_ *contracts.ReviewV1, d *contracts.DecisionV1, _ *contracts.ApprovalV1, a *contracts.ActionV1) {
		d.Shadow = true
		a.Outcome = contracts.OutcomeShadow
		a.Command = []string{"docker", "compose", "up"}
	}
	cases := []struct {
		name    string
		signer  map[string]string
		edit    func(*contracts.ReviewV1, *contracts.DecisionV1, *contracts.ApprovalV1, *contracts.ActionV1)
		service string
		rows    int
		want    Totals
		unverif int
	}{
		{name: "approved and planned", edit: shadow, rows: 1,
			want: Totals{Decisions: 1, GateAllowed: 1, HumanApproved: 1, Judged: 1, Agreed: 1, AgreedAllow: 1, AgreementRate: 1, WouldHaveRun: 1}},
		{name: "a decision that is not shadow is not counted", rows: 0},
		{name: "another service is left out", edit: shadow, service: "cart-api", rows: 0},
		{name: "an approval signed by the gate does not count", edit: shadow, signer: map[string]string{contracts.SubjectApproval: envelope.RoleGate},
			rows: 1, unverif: 1, want: Totals{Decisions: 1, GateAllowed: 1, AwaitingAnswer: 1}},
		{name: "a shadow decision acted on is shown", edit: func(r *contracts.ReviewV1, d *contracts.DecisionV1, ap *contracts.ApprovalV1, a *contracts.ActionV1) {
			shadow(r, d, ap, a)
			a.Outcome = contracts.OutcomeRolledBack
		}, rows: 1, want: Totals{Decisions: 1, GateAllowed: 1, HumanApproved: 1, Judged: 1, Agreed: 1, AgreedAllow: 1, AgreementRate: 1, Acted: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sum := Shadow(kr, chainOf(s, tc.signer, tc.edit), t0.Add(-time.Hour), tc.service)
			require.Len(t, sum.Rows, tc.rows)
			require.Equal(t, tc.want, sum.Totals)
			require.Equal(t, tc.unverif, sum.Unverified)
		})
	}
}
