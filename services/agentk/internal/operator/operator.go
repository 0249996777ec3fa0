// Package operator holds the commands an operator runs to read what a
// running pipeline stored, through NATS as the admin: report, incidents,
// audit, shadow-report, decisions, deadletters. (Answering and freezing go
// through the bridge's API: internal/bridgecmd.)
package operator

import (
	"context"
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

// register adds an operator command: every one of them reaches a running
// pipeline, so takes --connect-timeout.
func register(name, summary string, run func(context.Context, *command.Env, []string) error) {
	command.Register(command.Command{Name: name, Summary: summary, Run: run, Operator: true})
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
