package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"agentk/cmd/agentk/internal/chain"
	"agentk/cmd/agentk/internal/command"
)

func init() {
	register("decisions", "list the decisions that await a human's answer (allowed, unanswered, not expired): agentk decisions [--json]", cmdDecisions)
}

func cmdDecisions(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "decisions", "decisions [--json]")
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
	rows := chain.Pending(kr, msgs, now)
	if *asJSON {
		enc := json.NewEncoder(c.Stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.Stdout, "no decisions await an answer")
		return nil
	}
	tw := tabwriter.NewWriter(c.Stdout, 0, 4, 2, ' ', 0)
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
	fmt.Fprintln(c.Stdout, "\nanswer with: agentk approve <decision-id>  or  agentk deny <decision-id>")
	return nil
}
