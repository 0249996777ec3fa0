package chain

import (
	"encoding/json"
	"sort"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

// Agreement classes of one shadow decision.
const (
	Agree               = "agree" // gate allow & human approve, or gate deny & nobody approved
	AllowedDenied       = "gate_allowed_human_denied"
	DeniedApproved      = "gate_denied_approved" // cannot happen through the bridge; counted if it ever does
	AwaitingAnswer      = "awaiting_answer"      // gate allow, no human answer yet: not judged
	HumanNone           = "none"
	DeployerNotRecorded = ""
)

// Row is one shadow decision: the gate's verdict, the human's answer, and
// what the deployer would have run.
type Row struct {
	DecisionID   string    `json:"decision_id"`
	IncidentID   string    `json:"incident_id"`
	Service      string    `json:"service"`
	DecidedAt    time.Time `json:"decided_at"`
	Verdict      string    `json:"verdict"`
	FailedChecks []string  `json:"failed_checks"`
	Diagnosis    string    `json:"diagnosis,omitempty"`
	Human        string    `json:"human"`
	Approver     string    `json:"approver,omitempty"`
	Channel      string    `json:"channel,omitempty"`
	AnsweredAt   time.Time `json:"answered_at,omitzero"`
	// Outcome is the deployer's action on the human's answer: shadow (it
	// planned the rollback), refused (with Reason), none (a denial recorded),
	// or empty when it has not acted.
	Outcome   string   `json:"deployer_outcome,omitempty"`
	Reason    string   `json:"deployer_reason,omitempty"`
	Command   []string `json:"would_run,omitempty"`
	FromImage string   `json:"from_image,omitempty"`
	ToImage   string   `json:"to_image,omitempty"`
	Agreement string   `json:"agreement"`
}

// Totals sums the rows. Judged excludes allowed decisions nobody has
// answered yet; AgreementRate is Agreed / Judged (0 when nothing is judged).
type Totals struct {
	Decisions              int     `json:"decisions"`
	GateAllowed            int     `json:"gate_allowed"`
	GateDenied             int     `json:"gate_denied"`
	HumanApproved          int     `json:"human_approved"`
	HumanDenied            int     `json:"human_denied"`
	AwaitingAnswer         int     `json:"awaiting_answer"`
	Judged                 int     `json:"judged"`
	Agreed                 int     `json:"agreed"`
	AgreedAllow            int     `json:"agreed_allow_approve"`
	AgreedDeny             int     `json:"agreed_deny_not_approved"`
	GateAllowedHumanDenied int     `json:"gate_allowed_human_denied"`
	GateDeniedApproved     int     `json:"gate_denied_approved"`
	AgreementRate          float64 `json:"agreement_rate"`
	WouldHaveRun           int     `json:"would_have_run"`
	// Acted counts shadow decisions the deployer did act on (rolled back,
	// failed or dry run): never expected, always shown.
	Acted int `json:"acted"`
}

// Freeze is a freeze holding when the report was made.
type Freeze struct {
	Scope     string    `json:"scope"`
	By        string    `json:"by"`
	Reason    string    `json:"reason"`
	At        time.Time `json:"at"`
	ExpiresAt time.Time `json:"expires_at"`
	FreezeID  string    `json:"freeze_id"`
	// Problem is set when the stored value did not verify: the services treat
	// it as frozen (fail closed), so the report shows it.
	Problem string `json:"problem,omitempty"`
}

// Summary is the whole shadow report.
type Summary struct {
	Since      time.Time `json:"since"`
	Service    string    `json:"service,omitempty"`
	Rows       []Row     `json:"decisions"`
	Totals     Totals    `json:"totals"`
	Freezes    []Freeze  `json:"active_freezes"`
	Unverified int       `json:"unverified_messages"`
}

// decided is a counted shadow decision and its envelope's digest.
type decided struct {
	d      contracts.DecisionV1
	digest string
}

// shadowLinks are the verified messages a shadow report counts.
type shadowLinks struct {
	decisions  map[string]decided
	order      []string
	approvals  []contracts.ApprovalV1
	actions    []contracts.ActionV1
	unverified int
}

// Shadow is the shadow report's core: a pure function of the keyring and the
// stored messages. Only messages whose signature verifies (as of when they
// were issued) count; an approval counts only when it is bound to the
// recorded decision's digest, an action only when it answers a counted
// approval.
func Shadow(kr *envelope.Keyring, msgs []Msg, since time.Time, service string) Summary {
	sum := Summary{Since: since, Service: service, Rows: []Row{}, Freezes: []Freeze{}}
	l := collectShadow(kr, msgs, since, service)
	sum.Unverified = l.unverified
	answer := firstAnswers(l.decisions, l.approvals)
	acted := actedOn(answer, l.actions)
	for _, id := range l.order {
		r := row(l.decisions[id].d, answer, acted)
		sum.Totals.count(r)
		sum.Rows = append(sum.Rows, r)
	}
	t := &sum.Totals
	t.Judged = t.Decisions - t.AwaitingAnswer
	if t.Judged > 0 {
		t.AgreementRate = float64(t.Agreed) / float64(t.Judged)
	}
	sort.SliceStable(sum.Rows, func(i, j int) bool { return sum.Rows[i].DecidedAt.Before(sum.Rows[j].DecidedAt) })
	return sum
}

// collectShadow verifies the decisions, approvals and actions among msgs and
// keeps the shadow decisions of service (any when "") since since.
func collectShadow(kr *envelope.Keyring, msgs []Msg, since time.Time, service string) shadowLinks {
	l := shadowLinks{decisions: map[string]decided{}}
	for _, m := range msgs {
		switch m.Subject {
		case contracts.SubjectDecision, contracts.SubjectApproval, contracts.SubjectAction:
		default:
			continue
		}
		o := VerifyAt(kr, m.Data, m.Subject)
		if o.Err != nil {
			l.unverified++
			continue
		}
		switch m.Subject {
		case contracts.SubjectDecision:
			var d contracts.DecisionV1
			if json.Unmarshal(o.Env.Payload, &d) != nil || !d.Shadow || d.DecidedAt.Before(since) || (service != "" && d.Service != service) {
				continue
			}
			if _, seen := l.decisions[d.DecisionID]; !seen {
				l.order = append(l.order, d.DecisionID)
				l.decisions[d.DecisionID] = decided{d: d, digest: o.Env.Digest()}
			}
		case contracts.SubjectApproval:
			var a contracts.ApprovalV1
			if json.Unmarshal(o.Env.Payload, &a) == nil {
				l.approvals = append(l.approvals, a)
			}
		case contracts.SubjectAction:
			var a contracts.ActionV1
			if json.Unmarshal(o.Env.Payload, &a) == nil {
				l.actions = append(l.actions, a)
			}
		}
	}
	return l
}

// firstAnswers: the first answer bound to the recorded decision is the
// human's; the bridge and the deployer refuse any later one.
func firstAnswers(decisions map[string]decided, approvals []contracts.ApprovalV1) map[string]contracts.ApprovalV1 {
	answer := map[string]contracts.ApprovalV1{}
	for _, a := range approvals {
		d, ok := decisions[a.DecisionID]
		if _, answered := answer[a.DecisionID]; !ok || answered || a.DecisionDigest != d.digest {
			continue
		}
		answer[a.DecisionID] = a
	}
	return answer
}

// actedOn is the deployer's action on each answered decision, a shadow plan
// preferred over any other outcome.
func actedOn(answer map[string]contracts.ApprovalV1, actions []contracts.ActionV1) map[string]contracts.ActionV1 {
	acted := map[string]contracts.ActionV1{}
	for _, a := range actions {
		ap, ok := answer[a.DecisionID]
		if !ok || a.ApprovalID != ap.ApprovalID {
			continue
		}
		if prev, seen := acted[a.DecisionID]; !seen || (prev.Outcome != contracts.OutcomeShadow && a.Outcome == contracts.OutcomeShadow) {
			acted[a.DecisionID] = a
		}
	}
	return acted
}

// row is decision d with its human's answer and the deployer's action.
func row(d contracts.DecisionV1, answer map[string]contracts.ApprovalV1, acted map[string]contracts.ActionV1) Row {
	r := Row{DecisionID: d.DecisionID, IncidentID: d.IncidentID, Service: d.Service, DecidedAt: d.DecidedAt,
		Verdict: d.Verdict, FailedChecks: d.FailedChecks, Diagnosis: d.Diagnosis, Human: HumanNone}
	if r.FailedChecks == nil {
		r.FailedChecks = []string{}
	}
	if a, ok := answer[d.DecisionID]; ok {
		r.Human, r.Approver, r.Channel, r.AnsweredAt = a.Answer, a.Approver, a.Channel, a.AnsweredAt
	}
	if a, ok := acted[d.DecisionID]; ok {
		r.Outcome, r.Reason, r.Command, r.FromImage, r.ToImage = a.Outcome, a.Reason, a.Command, a.FromImage, a.ToImage
	}
	r.Agreement = Agreement(r.Verdict, r.Human)
	return r
}

// count adds one row to the totals (Judged and AgreementRate excepted).
func (t *Totals) count(r Row) {
	t.Decisions++
	if r.Verdict == contracts.VerdictAllow {
		t.GateAllowed++
	} else {
		t.GateDenied++
	}
	switch r.Human {
	case contracts.AnswerApprove:
		t.HumanApproved++
	case contracts.AnswerDeny:
		t.HumanDenied++
	}
	switch r.Agreement {
	case Agree:
		t.Agreed++
		if r.Verdict == contracts.VerdictAllow {
			t.AgreedAllow++
		} else {
			t.AgreedDeny++
		}
	case AllowedDenied:
		t.GateAllowedHumanDenied++
	case DeniedApproved:
		t.GateDeniedApproved++
	case AwaitingAnswer:
		t.AwaitingAnswer++
	}
	switch r.Outcome {
	case contracts.OutcomeShadow:
		t.WouldHaveRun++
	case contracts.OutcomeRolledBack, contracts.OutcomeFailed, contracts.OutcomeDryRun:
		t.Acted++
	}
}

// Agreement classifies one decision by the gate's verdict and the human's
// answer. A verdict other than allow is a denial (fail closed).
func Agreement(verdict, human string) string {
	allow := verdict == contracts.VerdictAllow
	switch {
	case allow && human == contracts.AnswerApprove:
		return Agree
	case allow && human == contracts.AnswerDeny:
		return AllowedDenied
	case allow:
		return AwaitingAnswer
	case human == contracts.AnswerApprove:
		return DeniedApproved
	default:
		return Agree
	}
}
