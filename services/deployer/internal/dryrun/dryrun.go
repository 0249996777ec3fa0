// Package dryrun is the runtime recorded-incident replays use: everything the
// docker runtime does except the compose command, which it reports instead.
// It also seeds the ledger and the cooldown from a recorded incident folder.
package dryrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/services/deployer/internal/ledger"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"

	"gopkg.in/yaml.v3"
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

// Verify has nothing to verify: a dry run never reaches it.
func (r Runtime) Verify(context.Context, policy.Plan) (rollback.Verification, error) {
	return rollback.Verification{Detail: "dry run: nothing changed"}, nil
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

// Load reads releases.yaml and incident.yaml's prior_actions from dir.
func Load(dir string, now time.Time) (Seed, error) {
	var rel incident.Releases
	if err := readYAML(filepath.Join(dir, "releases.yaml"), &rel); err != nil {
		return Seed{}, err
	}
	var meta incident.Meta
	if err := readYAML(filepath.Join(dir, "incident.yaml"), &meta); err != nil {
		return Seed{}, err
	}
	if rel.Project == "" {
		return Seed{}, fmt.Errorf("%w: %s: project is required", ErrIncident, filepath.Join(dir, "releases.yaml"))
	}
	s := Seed{Project: rel.Project, Services: meta.SandboxServices}
	names := make([]string, 0, len(rel.Services))
	for n := range rel.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(s.Services) == 0 {
		s.Services = names
	}
	for _, n := range names {
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

func readYAML(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIncident, err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrIncident, path, err)
	}
	return nil
}

func sortedKeys(m map[string]time.Time) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
