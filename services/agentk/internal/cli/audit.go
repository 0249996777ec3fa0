package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/nats-io/nats.go/jetstream"
	"io"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/wiring"
	"agentk/platform/topology"
)

func init() {
	register(command{"audit", "walk and verify an incident's chain (alert → evidence → review → decision → approval → action): agentk audit [--json] <incident>", cmdAudit})
}

// errAuditBroken is returned (exit 1) when any link of the chain fails.
var errAuditBroken = errors.New("audit: chain broken")

// auditMsg is one stored message: the stream's bytes, untouched.
type auditMsg struct {
	Subject string
	Seq     uint64
	Data    []byte
}

// auditLink is one verified (or broken) link of the chain.
type auditLink struct {
	Link    string    `json:"link"`
	ID      string    `json:"id,omitempty"`
	Who     string    `json:"who,omitempty"`
	What    string    `json:"what"`
	When    time.Time `json:"when"`
	Digest  string    `json:"digest,omitempty"`
	OK      bool      `json:"ok"`
	Problem string    `json:"problem,omitempty"`
}

// auditReport is the whole chain of one incident.
type auditReport struct {
	Incident string      `json:"incident"`
	OK       bool        `json:"ok"`
	Links    []auditLink `json:"links"`
}

// opened is one message of the incident after verification.
type opened struct {
	env envelope.Envelope
	err error
}

// verifyAt checks an envelope's signature, key role and subject as of the
// moment it was issued: an audit long after the fact still verifies a
// decision that has since expired, and never one that was forged.
func verifyAt(kr *envelope.Keyring, data []byte, subject string) opened {
	e, err := envelope.Parse(data)
	if err != nil {
		return opened{err: err}
	}
	return opened{env: e, err: kr.VerifyProduced(e, subject, e.Issued())}
}

// signedBy names the key that actually signed e, from the keyring: its role
// when it is the subject's producer, else the role (or "unknown key") and the
// key id, and whether the signature holds. The audit never labels a message
// with the role it should have had: an investigator-signed approval reads
// "investigator key …", not "bridge".
func signedBy(kr *envelope.Keyring, e envelope.Envelope, want string) string {
	if e.KeyID == "" {
		return "unsigned"
	}
	role := ""
	for _, k := range kr.Entries() {
		if k.KeyID == e.KeyID {
			role = k.Role
			break
		}
	}
	if role == "" {
		return "unknown key " + short(e.KeyID)
	}
	name := role
	if role != want {
		name = role + " key " + short(e.KeyID) + ", not the " + want
	}
	if errors.Is(kr.Verify(e, e.Subject, role, e.Issued()), envelope.ErrBadSignature) {
		name += ", signature does not hold"
	}
	return name
}

// auditChain is the audit's core: a pure function of the keyring and the
// stored messages. It keeps the messages of incident, verifies every
// signature, and checks every hash binding between links.
func auditChain(kr *envelope.Keyring, incident string, msgs []auditMsg) auditReport {
	rep := auditReport{Incident: incident, OK: true}
	add := func(l auditLink) {
		l.OK = l.Problem == ""
		if !l.OK {
			rep.OK = false
		}
		rep.Links = append(rep.Links, l)
	}
	type item struct {
		o   opened
		raw []byte
	}
	by := map[string][]item{}
	for _, m := range msgs {
		o := verifyAt(kr, m.Data, m.Subject)
		payload := o.env.Payload
		if payload == nil {
			if e, err := envelope.Parse(m.Data); err == nil {
				payload = e.Payload
			}
		}
		var head struct {
			IncidentID string `json:"incident_id"`
		}
		if json.Unmarshal(payload, &head) != nil || head.IncidentID != incident {
			continue
		}
		by[m.Subject] = append(by[m.Subject], item{o: o, raw: m.Data})
	}
	link := func(name, subject string, it item, id, what string) auditLink {
		l := auditLink{Link: name, ID: id, Who: signedBy(kr, it.o.env, wiring.Producer(subject)), What: what, When: it.o.env.Issued(), Digest: it.o.env.Digest()}
		if it.o.err != nil {
			l.Problem = "signature: " + it.o.err.Error()
		}
		return l
	}
	missing := func(name string) {
		add(auditLink{Link: name, What: "missing", Problem: "no " + name + " recorded for this incident"})
	}

	// Alert.
	if len(by[contracts.SubjectAlert]) == 0 {
		missing("alert")
	}
	for _, it := range by[contracts.SubjectAlert] {
		var a contracts.AlertV1
		_ = json.Unmarshal(it.o.env.Payload, &a)
		add(link("alert", contracts.SubjectAlert, it, a.Fingerprint, fmt.Sprintf("%s %s on %s (burn rate %g)", a.Status, a.AlertName, a.Service, a.BurnRate)))
	}
	// Evidence: the recorded evidence, by digest.
	evidence := map[string]bool{}
	for _, it := range by[contracts.SubjectEvidence] {
		var e contracts.EvidenceV1
		_ = json.Unmarshal(it.o.env.Payload, &e)
		add(link("evidence", contracts.SubjectEvidence, it, e.ID, e.Tool+" raw sha256 "+short(e.RawSHA256)))
		if it.o.err == nil {
			evidence[it.o.env.Digest()] = true
		}
	}
	// Review: every evidence envelope it carried must be one the sandbox
	// recorded, byte for byte (same digest, valid signature).
	reviews := by[contracts.SubjectReview]
	if len(reviews) == 0 {
		missing("review")
	}
	reviewIDs := map[string]bool{}
	for _, it := range reviews {
		var r contracts.ReviewV1
		_ = json.Unmarshal(it.o.env.Payload, &r)
		l := link("review", contracts.SubjectReview, it, r.ReviewID, fmt.Sprintf("kept %d, dropped %d claims", len(r.Kept), len(r.Dropped)))
		var bad []string
		for _, raw := range r.Evidence {
			e, err := envelope.Parse(raw)
			if err != nil || !evidence[e.Digest()] {
				bad = append(bad, short(envelope.Digest(e.Payload)))
			}
		}
		if len(bad) > 0 && l.Problem == "" {
			l.Problem = "evidence hashes not matching a verified recorded evidence: " + strings.Join(bad, ", ")
		}
		if l.Problem == "" {
			reviewIDs[r.ReviewID] = true
		}
		add(l)
	}
	// Decision: signed by the gate, bound to a verified review.
	decisions := map[string]string{} // decision id → digest
	decs := by[contracts.SubjectDecision]
	if len(decs) == 0 {
		missing("decision")
	}
	for _, it := range decs {
		var d contracts.DecisionV1
		_ = json.Unmarshal(it.o.env.Payload, &d)
		what := d.Verdict + " " + d.Action + " of " + d.Service
		if len(d.FailedChecks) > 0 {
			what += " (failed: " + strings.Join(d.FailedChecks, ", ") + ")"
		}
		if d.Shadow {
			what += " [shadow]"
		}
		l := link("decision", contracts.SubjectDecision, it, d.DecisionID, what)
		if l.Problem == "" && !reviewIDs[d.ReviewID] {
			l.Problem = "bound to review " + d.ReviewID + ", which is missing or did not verify"
		}
		if l.Problem == "" {
			decisions[d.DecisionID] = it.o.env.Digest()
		}
		add(l)
	}
	// Approval: signed by the bridge, its digest is the stored decision's,
	// and the decision it carries is that decision byte for byte.
	approvals := map[string]bool{}
	for _, it := range by[contracts.SubjectApproval] {
		var a contracts.ApprovalV1
		_ = json.Unmarshal(it.o.env.Payload, &a)
		l := link("approval", contracts.SubjectApproval, it, a.ApprovalID, a.Answer+" by "+a.Approver+" via "+a.Channel)
		l.Who = a.Approver + " (signed by " + l.Who + ")"
		want, ok := decisions[a.DecisionID]
		switch {
		case l.Problem != "":
		case !ok:
			l.Problem = "answers decision " + a.DecisionID + ", which is missing or did not verify"
		case a.DecisionDigest != want:
			l.Problem = fmt.Sprintf("digest binding: approval binds %s, the recorded decision is %s", short(a.DecisionDigest), short(want))
		default:
			if e, err := envelope.Parse(a.Decision); err != nil || e.Digest() != want || kr.VerifyProduced(e, contracts.SubjectDecision, e.Issued()) != nil {
				l.Problem = "the decision carried in the approval is not the recorded, gate-signed decision"
			}
		}
		if l.Problem == "" {
			approvals[a.ApprovalID] = true
		}
		add(l)
	}
	// Action and recovery.
	for _, it := range by[contracts.SubjectAction] {
		var a contracts.ActionV1
		_ = json.Unmarshal(it.o.env.Payload, &a)
		what := a.Outcome
		if a.ToImage != "" {
			what += " → " + a.ToImage
		}
		if len(a.Command) > 0 {
			what += ": " + strings.Join(a.Command, " ")
		}
		l := link("action", contracts.SubjectAction, it, a.ActionID, what)
		if l.Problem == "" && a.ApprovalID != "" && !approvals[a.ApprovalID] {
			l.Problem = "acts on approval " + a.ApprovalID + ", which is missing or did not verify"
		}
		add(l)
		rec := "not checked"
		if a.Recovered != nil {
			rec = fmt.Sprintf("recovered=%t", *a.Recovered)
		}
		if a.Outcome == contracts.OutcomeRolledBack {
			add(auditLink{Link: "recovery", ID: a.ActionID, Who: envelope.RoleDeployer, What: fmt.Sprintf("container verified=%t, %s", a.ContainerVerified, rec), When: a.FinishedAt})
		}
	}
	return rep
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func printAudit(w io.Writer, r auditReport) {
	fmt.Fprintf(w, "audit of %s\n", r.Incident)
	for _, l := range r.Links {
		mark := "ok    "
		if !l.OK {
			mark = "BROKEN"
		}
		fmt.Fprintf(w, "  %s %-9s %s  %-28s %s", mark, l.Link, l.When.UTC().Format(time.RFC3339), l.Who, l.What)
		if l.ID != "" {
			fmt.Fprintf(w, "  [%s]", l.ID)
		}
		if l.Digest != "" {
			fmt.Fprintf(w, " sha256 %s", short(l.Digest))
		}
		fmt.Fprintln(w)
		if l.Problem != "" {
			fmt.Fprintf(w, "         ↳ %s\n", l.Problem)
		}
	}
	if r.OK {
		fmt.Fprintln(w, "chain verified: every signature and hash binding holds")
	} else {
		fmt.Fprintln(w, "CHAIN BROKEN: see the links marked BROKEN")
	}
}

// readStreams returns every message of the audited streams, as stored.
func readStreams(ctx context.Context, c *cli) (*envelope.Keyring, []auditMsg, func(), error) {
	adm, kr, done, err := operatorAdmin(ctx, c)
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := storedMessages(ctx, adm.JetStream())
	if err != nil {
		done()
		return nil, nil, nil, err
	}
	return kr, out, done, nil
}

// storedMessages returns every message still stored in the pipeline's
// streams, in stream and sequence order. A gap (expired by max age) is skipped.
func storedMessages(ctx context.Context, js jetstream.JetStream) ([]auditMsg, error) {
	var out []auditMsg
	for _, s := range topology.Streams {
		st, err := js.Stream(ctx, s.Name)
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", s.Name, err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			return nil, err
		}
		for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
			m, err := st.GetMsg(ctx, seq)
			if err != nil {
				continue
			}
			out = append(out, auditMsg{Subject: m.Subject, Seq: seq, Data: bytes.Clone(m.Data)})
		}
	}
	return out, nil
}

func cmdAudit(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "audit", "audit [--json] <incident-id>")
	asJSON := fs.Bool("json", false, "print the chain as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one incident id", errUsage)
	}
	kr, msgs, done, err := readStreams(ctx, c)
	if err != nil {
		return err
	}
	defer done()
	rep := auditChain(kr, fs.Arg(0), msgs)
	if rep.unknown() {
		return fmt.Errorf("%w %s (agentk incidents lists them)", errNoSuchIncident, fs.Arg(0))
	}
	if *asJSON {
		_ = json.NewEncoder(c.stdout).Encode(rep)
	} else {
		printAudit(c.stdout, rep)
	}
	if !rep.OK {
		return errAuditBroken
	}
	return nil
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
