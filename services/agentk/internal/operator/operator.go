// Package operator holds the commands an operator runs to read what a
// running pipeline stored, through NATS as the admin: report, incidents,
// audit, shadow-report, decisions, deadletters. (Answering and freezing go
// through the bridge's API: internal/bridgecmd.)
package operator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"agentk/cmd/agentk/internal/command"
)

// errNoSuchIncident is returned by commands given an incident id of which the
// pipeline stored nothing.
var errNoSuchIncident = errors.New("no such incident")

// Commands are this package's commands, for internal/cli to register.
// Every one reaches a running pipeline, so takes --connect-timeout.
func Commands() []command.Command {
	return []command.Command{
		{Name: "report", Summary: "print an incident's report (Markdown; --html, --json): agentk report <incident-id>", Run: cmdReport, Operator: true},
		{Name: "incidents", Summary: "list open and recent incidents with their status: agentk incidents [--since 168h] [--json]", Run: cmdIncidents, Operator: true},
		{Name: "audit", Summary: "walk and verify an incident's chain (alert → evidence → review → decision → approval → action): agentk audit [--json] <incident>", Run: cmdAudit, Operator: true},
		{Name: "shadow-report", Summary: "compare shadow decisions with what humans answered and what the deployer would have run: agentk shadow-report [--json] [--since 720h] [--service S]", Run: cmdShadowReport, Operator: true},
		{Name: "decisions", Summary: "list the decisions that await a human's answer (allowed, unanswered, not expired): agentk decisions [--json]", Run: cmdDecisions, Operator: true},
		{Name: "deadletters", Summary: "list the messages a service could not process (subject, reason, when, ids)", Run: cmdDeadLetters, Operator: true},
	}
}

// printRows writes rows as one JSON object a line, or as a table: header,
// then row(r) a line, tab-separated; none alone when there are no rows. The
// listing commands print through it.
func printRows[T any](w io.Writer, rows []T, asJSON bool, none, header string, row func(T) string) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, none)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, row(r))
	}
	return tw.Flush()
}
