package operator

import (
	"context"
	"fmt"
	"time"

	"agentk/cmd/agentk/internal/chain"
	"agentk/cmd/agentk/internal/command"
)

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
	err = printRows(c.Stdout, rows, *asJSON, "no decisions await an answer", "DECISION\tINCIDENT\tSERVICE\tACTION\tCONFIDENCE\tEXPIRES IN\tDIAGNOSIS", func(r chain.Decision) string {
		action := r.Action
		if r.RollbackTarget != "" {
			action += " → " + r.RollbackTarget
		}
		return fmt.Sprintf("%s\t%s\t%s\t%s\t%.2f\t%s\t%s", r.DecisionID, r.IncidentID, r.Service, action, r.Confidence, r.ExpiresAt.Sub(now).Round(time.Second), r.Diagnosis)
	})
	if err == nil && !*asJSON && len(rows) > 0 {
		fmt.Fprintln(c.Stdout, "\nanswer with: agentk approve <decision-id>  or  agentk deny <decision-id>")
	}
	return err
}
