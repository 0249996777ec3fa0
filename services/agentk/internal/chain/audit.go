package chain

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/wiring"
)

// Link is one verified (or broken) link of the chain.
type Link struct {
	Link    string    `json:"link"`
	ID      string    `json:"id,omitempty"`
	Who     string    `json:"who,omitempty"`
	What    string    `json:"what"`
	When    time.Time `json:"when"`
	Digest  string    `json:"digest,omitempty"`
	OK      bool      `json:"ok"`
	Problem string    `json:"problem,omitempty"`
}

// Report is the whole chain of one incident.
type Report struct {
	Incident string `json:"incident"`
	OK       bool   `json:"ok"`
	Links    []Link `json:"links"`
}

// Unknown reports whether the audit found no message of the incident at all:
// every link missing is an id nobody filed, not a broken chain.
func (r Report) Unknown() bool {
	for _, l := range r.Links {
		if l.What != "missing" {
			return false
		}
	}
	return true
}

// item is one stored message of the incident, verified.
type item struct {
	o   Opened
	raw []byte
}

// auditor walks one incident's chain link by link; each link adds what the
// next is checked against (the verified evidence digests, review ids,
// decision digests and approval ids).
type auditor struct {
	kr        *envelope.Keyring
	rep       Report
	by        map[string][]item
	evidence  map[string]bool
	reviews   map[string]bool
	decisions map[string]string // decision id → digest
	approvals map[string]bool
}

// Audit is the audit's core: a pure function of the keyring and the stored
// messages. It keeps the messages of incident, verifies every signature, and
// checks every hash binding between links.
func Audit(kr *envelope.Keyring, incident string, msgs []Msg) Report {
	a := &auditor{kr: kr, rep: Report{Incident: incident, OK: true}, by: map[string][]item{},
		evidence: map[string]bool{}, reviews: map[string]bool{}, decisions: map[string]string{}, approvals: map[string]bool{}}
	for _, m := range msgs {
		o := VerifyAt(kr, m.Data, m.Subject)
		if id, ok := incidentOf(o, m.Data); ok && id == incident {
			a.by[m.Subject] = append(a.by[m.Subject], item{o: o, raw: m.Data})
		}
	}
	a.alerts()
	a.evidenceLinks()
	a.reviewLinks()
	a.decisionLinks()
	a.approvalLinks()
	a.actionLinks()
	return a.rep
}

func (a *auditor) add(l Link) {
	l.OK = l.Problem == ""
	if !l.OK {
		a.rep.OK = false
	}
	a.rep.Links = append(a.rep.Links, l)
}

func (a *auditor) link(name, subject string, it item, id, what string) Link {
	l := Link{Link: name, ID: id, Who: SignedBy(a.kr, it.o.Env, wiring.Producer(subject)), What: what, When: it.o.Env.Issued(), Digest: it.o.Env.Digest()}
	if it.o.Err != nil {
		l.Problem = "signature: " + it.o.Err.Error()
	}
	return l
}

// required adds a missing link when nothing of subject was recorded.
func (a *auditor) required(name, subject string) {
	if len(a.by[subject]) == 0 {
		a.add(Link{Link: name, What: "missing", Problem: "no " + name + " recorded for this incident"})
	}
}

func (a *auditor) alerts() {
	a.required("alert", contracts.SubjectAlert)
	for _, it := range a.by[contracts.SubjectAlert] {
		var al contracts.AlertV1
		_ = json.Unmarshal(it.o.Env.Payload, &al)
		a.add(a.link("alert", contracts.SubjectAlert, it, al.Fingerprint, fmt.Sprintf("%s %s on %s (burn rate %g)", al.Status, al.AlertName, al.Service, al.BurnRate)))
	}
}

// evidenceLinks: the recorded evidence, by digest.
func (a *auditor) evidenceLinks() {
	for _, it := range a.by[contracts.SubjectEvidence] {
		var e contracts.EvidenceV1
		_ = json.Unmarshal(it.o.Env.Payload, &e)
		a.add(a.link("evidence", contracts.SubjectEvidence, it, e.ID, e.Tool+" raw sha256 "+Short(e.RawSHA256)))
		if it.o.Err == nil {
			a.evidence[it.o.Env.Digest()] = true
		}
	}
}

// reviewLinks: every evidence envelope a review carried, and every one it
// names by reference, must be one the sandbox recorded (same payload
// digest, valid signature).
func (a *auditor) reviewLinks() {
	a.required("review", contracts.SubjectReview)
	for _, it := range a.by[contracts.SubjectReview] {
		var r contracts.ReviewV1
		_ = json.Unmarshal(it.o.Env.Payload, &r)
		l := a.link("review", contracts.SubjectReview, it, r.ReviewID, fmt.Sprintf("kept %d, dropped %d claims", len(r.Kept), len(r.Dropped)))
		var bad []string
		for _, raw := range r.Evidence {
			e, err := envelope.Parse(raw)
			if err != nil || !a.evidence[e.Digest()] {
				bad = append(bad, Short(envelope.Digest(e.Payload)))
			}
		}
		for _, ref := range r.EvidenceRefs {
			if !a.evidence[ref.Digest] {
				bad = append(bad, Short(ref.Digest))
			}
		}
		if len(bad) > 0 && l.Problem == "" {
			l.Problem = "evidence hashes not matching a verified recorded evidence: " + strings.Join(bad, ", ")
		}
		if l.Problem == "" {
			a.reviews[r.ReviewID] = true
		}
		a.add(l)
	}
}

// decisionLinks: signed by the gate, bound to a verified review.
func (a *auditor) decisionLinks() {
	a.required("decision", contracts.SubjectDecision)
	for _, it := range a.by[contracts.SubjectDecision] {
		var d contracts.DecisionV1
		_ = json.Unmarshal(it.o.Env.Payload, &d)
		what := d.Verdict + " " + d.Action + " of " + d.Service
		if len(d.FailedChecks) > 0 {
			what += " (failed: " + strings.Join(d.FailedChecks, ", ") + ")"
		}
		if o := d.Origin; o != nil {
			what += " (derived: the alert is on " + o.AlertedService + ")"
		}
		if d.Shadow {
			what += " [shadow]"
		}
		l := a.link("decision", contracts.SubjectDecision, it, d.DecisionID, what)
		if l.Problem == "" && !a.reviews[d.ReviewID] {
			l.Problem = "bound to review " + d.ReviewID + ", which is missing or did not verify"
		}
		if l.Problem == "" {
			a.decisions[d.DecisionID] = it.o.Env.Digest()
		}
		a.add(l)
	}
}

// approvalLinks: signed by the bridge, its digest is the stored decision's,
// and the decision it carries is that decision byte for byte.
func (a *auditor) approvalLinks() {
	for _, it := range a.by[contracts.SubjectApproval] {
		var ap contracts.ApprovalV1
		_ = json.Unmarshal(it.o.Env.Payload, &ap)
		l := a.link("approval", contracts.SubjectApproval, it, ap.ApprovalID, ap.Answer+" by "+ap.Approver+" via "+ap.Channel)
		l.Who = ap.Approver + " (signed by " + l.Who + ")"
		if l.Problem == "" {
			l.Problem = a.approvalBinding(ap)
		}
		if l.Problem == "" {
			a.approvals[ap.ApprovalID] = true
		}
		a.add(l)
	}
}

// approvalBinding is what is wrong with an approval's binding to its
// decision, or "".
func (a *auditor) approvalBinding(ap contracts.ApprovalV1) string {
	want, ok := a.decisions[ap.DecisionID]
	switch {
	case !ok:
		return "answers decision " + ap.DecisionID + ", which is missing or did not verify"
	case ap.DecisionDigest != want:
		return fmt.Sprintf("digest binding: approval binds %s, the recorded decision is %s", Short(ap.DecisionDigest), Short(want))
	}
	if e, err := envelope.Parse(ap.Decision); err != nil || e.Digest() != want || a.kr.VerifyProduced(e, contracts.SubjectDecision, e.Issued()) != nil {
		return "the decision carried in the approval is not the recorded, gate-signed decision"
	}
	return ""
}

// actionLinks: the deployer's actions, each on a verified approval, and the
// recovery of a rollback.
func (a *auditor) actionLinks() {
	for _, it := range a.by[contracts.SubjectAction] {
		var ac contracts.ActionV1
		_ = json.Unmarshal(it.o.Env.Payload, &ac)
		what := ac.Outcome
		if ac.ToImage != "" {
			what += " → " + ac.ToImage
		}
		if len(ac.Command) > 0 {
			what += ": " + strings.Join(ac.Command, " ")
		}
		l := a.link("action", contracts.SubjectAction, it, ac.ActionID, what)
		if l.Problem == "" && ac.ApprovalID != "" && !a.approvals[ac.ApprovalID] {
			l.Problem = "acts on approval " + ac.ApprovalID + ", which is missing or did not verify"
		}
		a.add(l)
		rec := "not checked"
		if ac.Recovered != nil {
			rec = fmt.Sprintf("recovered=%t", *ac.Recovered)
		}
		if ac.Outcome == contracts.OutcomeRolledBack {
			a.add(Link{Link: "recovery", ID: ac.ActionID, Who: envelope.RoleDeployer, What: fmt.Sprintf("container verified=%t, %s", ac.ContainerVerified, rec), When: ac.FinishedAt})
		}
	}
}
