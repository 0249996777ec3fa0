package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go/jetstream"
)

func init() {
	register(command{"shadow-report", "compare shadow decisions with what humans answered and what the deployer would have run: agentk shadow-report [--json] [--since 720h] [--service S]", cmdShadowReport})
}

// Agreement classes of one shadow decision.
const (
	shadowAgree           = "agree" // gate allow & human approve, or gate deny & nobody approved
	shadowAllowedDenied   = "gate_allowed_human_denied"
	shadowDeniedApproved  = "gate_denied_approved" // cannot happen through the bridge; counted if it ever does
	shadowAwaitingAnswer  = "awaiting_answer"      // gate allow, no human answer yet: not judged
	humanNone             = "none"
	deployerNotRecorded   = ""
	shadowDefaultLookback = 720 * time.Hour
)

// shadowRow is one shadow decision: the gate's verdict, the human's answer,
// and what the deployer would have run.
type shadowRow struct {
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

// shadowTotals sums the rows. Judged excludes allowed decisions nobody has
// answered yet; AgreementRate is Agreed / Judged (0 when nothing is judged).
type shadowTotals struct {
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

// shadowFreeze is a freeze holding when the report was made.
type shadowFreeze struct {
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

// shadowSummary is the whole report.
type shadowSummary struct {
	Since      time.Time      `json:"since"`
	Service    string         `json:"service,omitempty"`
	Rows       []shadowRow    `json:"decisions"`
	Totals     shadowTotals   `json:"totals"`
	Freezes    []shadowFreeze `json:"active_freezes"`
	Unverified int            `json:"unverified_messages"`
}

// shadowReport is the report's core: a pure function of the keyring and the
// stored messages. Only messages whose signature verifies (as of when they
// were issued) count; an approval counts only when it is bound to the
// recorded decision's digest, an action only when it answers a counted
// approval.
func shadowReport(kr *envelope.Keyring, msgs []auditMsg, since time.Time, service string) shadowSummary {
	sum := shadowSummary{Since: since, Service: service, Rows: []shadowRow{}, Freezes: []shadowFreeze{}}
	type decided struct {
		d      contracts.DecisionV1
		digest string
	}
	decisions := map[string]decided{}
	var order []string
	var approvals []contracts.ApprovalV1
	var actions []contracts.ActionV1
	for _, m := range msgs {
		switch m.Subject {
		case contracts.SubjectDecision, contracts.SubjectApproval, contracts.SubjectAction:
		default:
			continue
		}
		o := verifyAt(kr, m.Data, m.Subject)
		if o.err != nil {
			sum.Unverified++
			continue
		}
		switch m.Subject {
		case contracts.SubjectDecision:
			var d contracts.DecisionV1
			if json.Unmarshal(o.env.Payload, &d) != nil || !d.Shadow || d.DecidedAt.Before(since) || (service != "" && d.Service != service) {
				continue
			}
			if _, seen := decisions[d.DecisionID]; !seen {
				order = append(order, d.DecisionID)
				decisions[d.DecisionID] = decided{d: d, digest: o.env.Digest()}
			}
		case contracts.SubjectApproval:
			var a contracts.ApprovalV1
			if json.Unmarshal(o.env.Payload, &a) == nil {
				approvals = append(approvals, a)
			}
		case contracts.SubjectAction:
			var a contracts.ActionV1
			if json.Unmarshal(o.env.Payload, &a) == nil {
				actions = append(actions, a)
			}
		}
	}
	// The first answer bound to the recorded decision is the human's; the
	// bridge and the deployer refuse any later one.
	answer := map[string]contracts.ApprovalV1{}
	for _, a := range approvals {
		d, ok := decisions[a.DecisionID]
		if _, answered := answer[a.DecisionID]; !ok || answered || a.DecisionDigest != d.digest {
			continue
		}
		answer[a.DecisionID] = a
	}
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
	t := &sum.Totals
	for _, id := range order {
		d := decisions[id].d
		r := shadowRow{DecisionID: d.DecisionID, IncidentID: d.IncidentID, Service: d.Service, DecidedAt: d.DecidedAt,
			Verdict: d.Verdict, FailedChecks: d.FailedChecks, Diagnosis: d.Diagnosis, Human: humanNone}
		if r.FailedChecks == nil {
			r.FailedChecks = []string{}
		}
		if a, ok := answer[id]; ok {
			r.Human, r.Approver, r.Channel, r.AnsweredAt = a.Answer, a.Approver, a.Channel, a.AnsweredAt
		}
		if a, ok := acted[id]; ok {
			r.Outcome, r.Reason, r.Command, r.FromImage, r.ToImage = a.Outcome, a.Reason, a.Command, a.FromImage, a.ToImage
		}
		r.Agreement = agreement(r.Verdict, r.Human)
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
		case shadowAgree:
			t.Agreed++
			if r.Verdict == contracts.VerdictAllow {
				t.AgreedAllow++
			} else {
				t.AgreedDeny++
			}
		case shadowAllowedDenied:
			t.GateAllowedHumanDenied++
		case shadowDeniedApproved:
			t.GateDeniedApproved++
		case shadowAwaitingAnswer:
			t.AwaitingAnswer++
		}
		switch r.Outcome {
		case contracts.OutcomeShadow:
			t.WouldHaveRun++
		case contracts.OutcomeRolledBack, contracts.OutcomeFailed, contracts.OutcomeDryRun:
			t.Acted++
		}
		sum.Rows = append(sum.Rows, r)
	}
	t.Judged = t.Decisions - t.AwaitingAnswer
	if t.Judged > 0 {
		t.AgreementRate = float64(t.Agreed) / float64(t.Judged)
	}
	sort.SliceStable(sum.Rows, func(i, j int) bool { return sum.Rows[i].DecidedAt.Before(sum.Rows[j].DecidedAt) })
	return sum
}

// agreement classifies one decision by the gate's verdict and the human's
// answer. A verdict other than allow is a denial (fail closed).
func agreement(verdict, human string) string {
	allow := verdict == contracts.VerdictAllow
	switch {
	case allow && human == contracts.AnswerApprove:
		return shadowAgree
	case allow && human == contracts.AnswerDeny:
		return shadowAllowedDenied
	case allow:
		return shadowAwaitingAnswer
	case human == contracts.AnswerApprove:
		return shadowDeniedApproved
	default:
		return shadowAgree
	}
}

// activeFreezes reads the latest value of every freeze scope and keeps those
// holding at now; a value that does not verify as bridge-signed is listed
// with its problem, since the gate and the deployer count it as frozen.
func activeFreezes(ctx context.Context, adm *bus.Conn, kr *envelope.Keyring, now time.Time) ([]shadowFreeze, error) {
	kv, err := adm.KeyValue(ctx, topology.BucketFreezes)
	if err != nil {
		return nil, err
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return []shadowFreeze{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []shadowFreeze{}
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if err != nil {
			continue // deleted meanwhile
		}
		var f contracts.FreezeV1
		env, err := envelope.Parse(e.Value())
		if err == nil {
			err = kr.VerifyProduced(env, contracts.SubjectFreeze, env.Issued())
		}
		if err == nil {
			err = json.Unmarshal(env.Payload, &f)
		}
		if err != nil {
			out = append(out, shadowFreeze{Scope: k, Problem: "does not verify as bridge-signed (counts as frozen): " + err.Error()})
			continue
		}
		if f.HoldsAt(now) {
			out = append(out, shadowFreeze{Scope: f.Scope, By: f.By, Reason: f.Reason, At: f.At, ExpiresAt: f.ExpiresAt, FreezeID: f.FreezeID})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
	return out, nil
}

// readShadowData reads every stored message of the pipeline's streams and
// the active freezes through one admin connection.
func readShadowData(ctx context.Context, c *cli, now time.Time) (*envelope.Keyring, []auditMsg, []shadowFreeze, error) {
	adm, kr, done, err := operatorAdmin(ctx, c)
	if err != nil {
		return nil, nil, nil, err
	}
	defer done()
	msgs, err := storedMessages(ctx, adm.JetStream())
	if err != nil {
		return nil, nil, nil, err
	}
	fz, err := activeFreezes(ctx, adm, kr, now)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("freezes: %w", err)
	}
	return kr, msgs, fz, nil
}

func cmdShadowReport(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "shadow-report", "shadow-report [--json] [--since 720h] [--service S]")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	since := fs.Duration("since", shadowDefaultLookback, "shadow decisions made within this long")
	svc := fs.String("service", "", "only this service's decisions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 || *since <= 0 {
		fs.Usage()
		return fmt.Errorf("%w: no arguments; --since must be positive", errUsage)
	}
	now := time.Now().UTC()
	kr, msgs, freezes, err := readShadowData(ctx, c, now)
	if err != nil {
		return err
	}
	sum := shadowReport(kr, msgs, now.Add(-*since), *svc)
	sum.Freezes = freezes
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	return printShadow(c.stdout, sum)
}

func printShadow(w io.Writer, s shadowSummary) error {
	scope := "every service"
	if s.Service != "" {
		scope = s.Service
	}
	fmt.Fprintf(w, "shadow decisions since %s (%s)\n", s.Since.Format(time.RFC3339), scope)
	if len(s.Freezes) > 0 {
		fmt.Fprintln(w, "active freezes:")
		for _, f := range s.Freezes {
			if f.Problem != "" {
				fmt.Fprintf(w, "  %s: %s\n", f.Scope, f.Problem)
				continue
			}
			fmt.Fprintf(w, "  %s by %s until %s: %s\n", f.Scope, f.By, f.ExpiresAt.UTC().Format(time.RFC3339), f.Reason)
		}
	}
	if s.Unverified > 0 {
		fmt.Fprintf(w, "WARNING: %d stored messages did not verify and were left out (run agentk audit on their incidents)\n", s.Unverified)
	}
	if len(s.Rows) == 0 {
		fmt.Fprintln(w, "no shadow decisions (set AGENTK_SHADOW on the gate and the deployer)")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DECIDED\tINCIDENT\tSERVICE\tGATE\tHUMAN\tDEPLOYER\tAGREEMENT")
	for _, r := range s.Rows {
		gate := r.Verdict
		if len(r.FailedChecks) > 0 {
			gate += " (" + strings.Join(r.FailedChecks, ",") + ")"
		}
		human := r.Human
		if r.Approver != "" {
			human += " by " + r.Approver
		}
		dep := r.Outcome
		if dep == deployerNotRecorded {
			dep = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.DecidedAt.UTC().Format(time.RFC3339), r.IncidentID, r.Service, gate, human, dep, r.Agreement)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range s.Rows {
		switch {
		case len(r.Command) > 0:
			fmt.Fprintf(w, "%s would have run: %s\n", r.IncidentID, strings.Join(r.Command, " "))
			fmt.Fprintf(w, "%s   from %s to %s\n", strings.Repeat(" ", len(r.IncidentID)), orDash(r.FromImage), orDash(r.ToImage))
		case r.Outcome == contracts.OutcomeRefused || r.Outcome == contracts.OutcomeFailed:
			fmt.Fprintf(w, "%s deployer %s: %s\n", r.IncidentID, r.Outcome, r.Reason)
		}
	}
	t := s.Totals
	fmt.Fprintf(w, "\n%d shadow decisions: gate allowed %d, denied %d; humans approved %d, denied %d; %d allowed awaiting an answer\n",
		t.Decisions, t.GateAllowed, t.GateDenied, t.HumanApproved, t.HumanDenied, t.AwaitingAnswer)
	if t.Judged > 0 {
		fmt.Fprintf(w, "agreement: %d of %d judged (%.1f%%): gate allow & human approve %d, gate deny & nobody approved %d\n",
			t.Agreed, t.Judged, 100*t.AgreementRate, t.AgreedAllow, t.AgreedDeny)
	} else {
		fmt.Fprintln(w, "agreement: nothing judged yet")
	}
	fmt.Fprintf(w, "gate allowed but human denied: %d; gate denied: %d", t.GateAllowedHumanDenied, t.GateDenied)
	if t.GateDeniedApproved > 0 {
		fmt.Fprintf(w, " (%d approved anyway: investigate)", t.GateDeniedApproved)
	}
	fmt.Fprintf(w, "\nthe deployer planned %d rollbacks (outcome shadow)", t.WouldHaveRun)
	if t.Acted > 0 {
		fmt.Fprintf(w, "; WARNING: it acted on %d shadow decisions, which must never happen: run agentk audit on them", t.Acted)
	}
	fmt.Fprintln(w)
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
