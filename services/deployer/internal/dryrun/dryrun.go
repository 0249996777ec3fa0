// Package dryrun is the runtime that does everything the docker runtime does
// except the compose command, which it reports instead. On a real stack
// ("watch first") its release ledger follows Docker exactly as the docker
// runtime's does (the deployer wires dockerrt's watcher to it), so it can
// allow what the docker runtime would do; for recorded-incident replays Load
// seeds the ledger and the cooldown from the incident folder instead.
package dryrun

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/services/deployer/internal/ledger"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"
)

// ErrIncident wraps a recorded incident that cannot seed a dry run.
var ErrIncident = errors.New("dryrun: incident")

// Runtime reports the command it would run and changes nothing.
type Runtime struct {
	// Command returns the exact argv the docker runtime would run for a service.
	Command func(service string) []string
}

// Apply implements rollback.Runtime without running anything.
func (r Runtime) Apply(_ context.Context, plan policy.Plan) (rollback.Applied, error) {
	return rollback.Applied{Command: r.Command(plan.Service), DryRun: true}, nil
}

// CommandFor implements rollback.Planner.
func (r Runtime) CommandFor(service string) []string { return r.Command(service) }

// Verify has nothing to verify: a dry run reaches it only when a restart
// reconciles a dry run it interrupted, and says so.
func (r Runtime) Verify(context.Context, policy.Plan) (rollback.Verification, error) {
	return rollback.Verification{Detail: "dry run: nothing changed", DryRun: true}, nil
}

// Seed is what a recorded incident says the deployer's KV held when it began.
type Seed struct {
	Project string
	// Services is the allowlist the incident implies: its sandbox_services,
	// else every service in releases.yaml.
	Services  []string
	Ledgers   []contracts.ReleaseLedgerV1
	Cooldowns []contracts.CooldownV1
}

// Load reads the recorded incident folder dir with incident.Load, the
// format's one validating reader (every problem named by file, line and
// field), and seeds from its releases.yaml and incident.yaml prior_actions.
// releases.yaml is optional in the format but required here: without it
// there is nothing to roll back to.
func Load(dir string, now time.Time) (Seed, error) {
	inc, err := incident.LoadManifest(dir)
	if err != nil {
		return Seed{}, fmt.Errorf("%w: %w", ErrIncident, err)
	}
	rel, meta := inc.Releases, inc.Meta
	if rel.Project == "" || len(rel.Services) == 0 {
		return Seed{}, fmt.Errorf("%w: %s: a dry run needs %s with a project and its services", ErrIncident, dir, incident.FileReleases)
	}
	s := Seed{Project: rel.Project, Services: inc.SandboxScope()}
	for _, n := range rel.ServiceNames() {
		var rs []contracts.Release
		for i, e := range rel.Services[n] {
			if e.Image == "" {
				return Seed{}, fmt.Errorf("%w: releases.yaml: services.%s[%d].image is required", ErrIncident, n, i)
			}
			rs = append(rs, contracts.Release{Version: e.Version, Image: e.Image, DeployedAt: e.DeployedAt})
		}
		s.Ledgers = append(s.Ledgers, ledger.Seed(rel.Project, n, rs, now))
	}
	latest := map[string]time.Time{}
	for _, p := range meta.PriorActions {
		if p.At.After(latest[p.Service]) {
			latest[p.Service] = p.At
		}
	}
	for _, n := range sortedKeys(latest) {
		s.Cooldowns = append(s.Cooldowns, contracts.CooldownV1{Service: n, ActionID: "prior." + meta.ID, At: latest[n]})
	}
	return s, nil
}

func sortedKeys(m map[string]time.Time) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
