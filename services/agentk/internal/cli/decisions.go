package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"text/tabwriter"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

func init() {
	register(command{"decisions", "list the decisions that await a human's answer (allowed, unanswered, not expired): agentk decisions [--json]", cmdDecisions})
}

// pendingDecision is one line of `agentk decisions`.
type pendingDecision struct {
	DecisionID     string    `json:"decision_id"`
	IncidentID     string    `json:"incident_id"`
	Service        string    `json:"service"`
	Action         string    `json:"action"`
	RollbackTarget string    `json:"rollback_target,omitempty"`
	Diagnosis      string    `json:"diagnosis,omitempty"`
	Confidence     float64   `json:"confidence"`
	DecidedAt      time.Time `json:"decided_at"`
	ExpiresAt      time.Time `json:"expires_at"`
}

// pendingDecisions is the command's core, a pure function of the keyring,
// the stored messages and the time: the gate-signed decisions that allow an
// action, are not shadow decisions, have not expired at now and that no
// bridge-signed approval (yes or no) answers. A message whose signature does
// not verify is neither a decision nor an answer. Oldest first: the one
// closest to expiring leads.
func pendingDecisions(kr *envelope.Keyring, msgs []auditMsg, now time.Time) []pendingDecision {
	answered := map[string]bool{}
	var decs []contracts.DecisionV1
	for _, m := range msgs {
		switch m.Subject {
		case contracts.SubjectApproval:
			o := verifyAt(kr, m.Data, m.Subject)
			var a contracts.ApprovalV1
			if o.err == nil && json.Unmarshal(o.env.Payload, &a) == nil {
				answered[a.DecisionID] = true
			}
		case contracts.SubjectDecision:
			o := verifyAt(kr, m.Data, m.Subject)
			var d contracts.DecisionV1
			if o.err == nil && json.Unmarshal(o.env.Payload, &d) == nil {
				decs = append(decs, d)
			}
		}
	}
	var out []pendingDecision
	for _, d := range decs {
		if d.Verdict != contracts.VerdictAllow || d.Shadow || answered[d.DecisionID] || !now.Before(d.ExpiresAt) {
			continue
		}
		out = append(out, pendingDecision{
			DecisionID: d.DecisionID, IncidentID: d.IncidentID, Service: d.Service, Action: d.Action,
			RollbackTarget: d.RollbackTarget, Diagnosis: d.Diagnosis, Confidence: d.Confidence,
			DecidedAt: d.DecidedAt, ExpiresAt: d.ExpiresAt,
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ExpiresAt.Before(out[j].ExpiresAt) })
	return out
}

func cmdDecisions(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "decisions", "decisions [--json]")
	asJSON := fs.Bool("json", false, "print one JSON object per pending decision")
	if err := fs.Parse(args); err != nil {
		return err
	}
	kr, msgs, done, err := readStreams(ctx, c)
	if err != nil {
		return err
	}
	defer done()
	now := time.Now().UTC()
	rows := pendingDecisions(kr, msgs, now)
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.stdout, "no decisions await an answer")
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DECISION\tINCIDENT\tSERVICE\tACTION\tCONFIDENCE\tEXPIRES IN\tDIAGNOSIS")
	for _, r := range rows {
		action := r.Action
		if r.RollbackTarget != "" {
			action += " → " + r.RollbackTarget
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%s\t%s\n", r.DecisionID, r.IncidentID, r.Service, action, r.Confidence, r.ExpiresAt.Sub(now).Round(time.Second), r.Diagnosis)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, "\nanswer with: agentk approve <decision-id>  or  agentk deny <decision-id>")
	return nil
}
