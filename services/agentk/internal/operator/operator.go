// Package operator holds the commands an operator runs against a running
// pipeline: reading what it stored (report, incidents, audit, shadow-report,
// decisions, deadletters) through NATS, and answering and freezing through
// the bridge's API (approve, deny, freeze, unfreeze).
package operator

import (
	"context"
	"errors"

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
