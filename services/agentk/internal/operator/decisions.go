package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"agentk/cmd/agentk/internal/chain"
	"agentk/cmd/agentk/internal/command"
	"agentk/platform/bus"
	"agentk/platform/topology"
)

func cmdDecisions(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "decisions", "decisions [--json]")
	asJSON := fs.Bool("json", false, "print one JSON object per pending decision")
	if err := fs.Parse(args); err != nil {
		return err
	}
	adm, kr, done, err := operatorAdmin(ctx, c)
	if err != nil {
		return err
	}
	defer done()
	msgs, err := storedMessages(ctx, adm.JetStream())
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	rows := withResolves(ctx, adm, chain.Pending(kr, msgs, now))
	return printDecisions(c.Stdout, rows, now, *asJSON)
}

// withResolves sets each row's AlertResolvedAt from the ingester's incident
// record (the same record the bridge checks an approval against). A record
// that cannot be read leaves the row as it is: the bridge still refuses an
// approval that does not re-confirm.
func withResolves(ctx context.Context, adm *bus.Conn, rows []chain.Decision) []chain.Decision {
	ikv, err := adm.KeyValue(ctx, topology.BucketIncidents)
	if err != nil {
		return rows
	}
	for i, r := range rows {
		e, err := ikv.Get(ctx, r.IncidentID)
		if err != nil {
			continue
		}
		var rec struct {
			ResolvedAt time.Time `json:"resolved_at"`
		}
		if json.Unmarshal(e.Value(), &rec) == nil {
			rows[i].AlertResolvedAt = rec.ResolvedAt
		}
	}
	return rows
}

// printDecisions writes the pending decisions: a table, then how to answer;
// a decision whose alert resolved says so in its row and below, with the
// command that approves it anyway.
func printDecisions(w io.Writer, rows []chain.Decision, now time.Time, asJSON bool) error {
	err := printRows(w, rows, asJSON, "no decisions await an answer", "DECISION\tINCIDENT\tSERVICE\tACTION\tCONFIDENCE\tEXPIRES IN\tALERT\tDIAGNOSIS", func(r chain.Decision) string {
		action := r.Action
		if r.RollbackTarget != "" {
			action += " → " + r.RollbackTarget
		}
		alert := "firing"
		if !r.AlertResolvedAt.IsZero() {
			alert = "resolved " + r.AlertResolvedAt.UTC().Format(time.RFC3339)
		}
		svc := printable(r.Service, 80)
		if r.AlertedService != "" {
			svc += " (alert on " + printable(r.AlertedService, 80) + ")"
		}
		return fmt.Sprintf("%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s", printable(r.DecisionID, 80), printable(r.IncidentID, 80), svc, printable(action, 120),
			r.Confidence, r.ExpiresAt.Sub(now).Round(time.Second), alert, printable(r.Diagnosis, 120))
	})
	if err != nil || asJSON || len(rows) == 0 {
		return err
	}
	fmt.Fprintln(w, "\nanswer with: agentk approve <decision-id>  or  agentk deny <decision-id>")
	for _, r := range rows {
		if r.AlertedService == "" {
			continue
		}
		// A derived decision (issue 33): say which service it acts on and
		// why that is not the alerted one.
		fmt.Fprintf(w, "%s acts on %s, not on the alerted %s: %s\n", printable(r.DecisionID, 80), printable(r.Service, 80),
			printable(r.AlertedService, 80), printable(r.Why, 300))
	}
	for _, r := range rows {
		if r.AlertResolvedAt.IsZero() {
			continue
		}
		at := r.AlertResolvedAt.UTC().Format(time.RFC3339)
		fmt.Fprintf(w, "the alert of %s resolved at %s: a plain approve is refused; to roll back anyway: agentk approve --confirm-resolved %s %s\n",
			printable(r.IncidentID, 80), at, at, printable(r.DecisionID, 80))
	}
	return nil
}
