package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"agentk/services/bridge"
	"agentk/services/deployer"
	"agentk/services/gate"
	"agentk/services/ingester"
	"agentk/services/investigator"
	"agentk/services/reviewer"
	"agentk/services/sandbox"
)

// checkers validate each service's configuration exactly as its Run does.
var checkers = []struct {
	role  string
	check func(func(string) string) error
}{
	{"ingester", ingester.CheckConfig},
	{"sandbox", sandbox.CheckConfig},
	{"investigator", investigator.CheckConfig},
	{"reviewer", reviewer.CheckConfig},
	{"gate", gate.CheckConfig},
	{"bridge", bridge.CheckConfig},
	{"deployer", deployer.CheckConfig},
}

// secretName reports whether a variable holds a secret by its name.
func secretName(name string) bool {
	if strings.HasSuffix(name, "_FILE") {
		return false // a path, not the secret
	}
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "API_KEY", "HEADERS", "APPROVERS", "SEED"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// redact hides secrets and credentials in URLs.
func redact(name, value string) string {
	if secretName(name) && value != "" {
		return "[redacted]"
	}
	if i := strings.Index(value, "://"); i >= 0 {
		if at := strings.Index(value[i+3:], "@"); at >= 0 {
			return value[:i+3] + "[redacted]@" + value[i+3+at+1:]
		}
	}
	return value
}

func cmdConfig(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "config", "config [--service NAME]")
	only := fs.String("service", "", "check only this service's configuration")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var names []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "AGENTK_") || strings.HasPrefix(name, "OTEL_") || name == "DOCKER_HOST" {
			if c.getenv(name) != "" {
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	fmt.Fprintln(c.stdout, "Set in the environment (secrets redacted; everything else takes its default, see docs/configuration.md):")
	if len(names) == 0 {
		fmt.Fprintln(c.stdout, "  (nothing: every variable at its default)")
	}
	for _, n := range names {
		fmt.Fprintf(c.stdout, "  %s=%s\n", n, redact(n, c.getenv(n)))
	}
	fmt.Fprintf(c.stdout, "\nNATS: %s; data dir %s; keys %s\n", orDefault(c.getenv("AGENTK_NATS_URL"), "embedded server"), dataDir(c), keysDir(c))
	fmt.Fprintln(c.stdout, "\nEach service's configuration, read as its Run reads it:")
	bad := 0
	for _, ch := range checkers {
		if *only != "" && ch.role != *only {
			continue
		}
		if err := ch.check(c.getenv); err != nil {
			bad++
			fmt.Fprintf(c.stdout, "  %-13s INVALID\n", ch.role)
			for _, line := range strings.Split(err.Error(), "\n") {
				fmt.Fprintf(c.stdout, "      %s\n", line)
			}
			continue
		}
		fmt.Fprintf(c.stdout, "  %-13s ok\n", ch.role)
	}
	if bad > 0 {
		return fmt.Errorf("%d service(s) would refuse to start", bad)
	}
	if *only == "" {
		if err := checkLinkBases(c.getenv); err != nil {
			fmt.Fprintf(c.stdout, "\nCross-check FAILED: %v\n", err)
			return err
		}
	}
	if down := reportServiceHealth(ctx, c, c.stdout); down > 0 {
		return fmt.Errorf("%d service(s) of the running agentk are not ready", down)
	}
	return nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
