package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"agentk/platform/bus"
	"agentk/platform/config"
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
	{"platform", checkPlatform},
	{"ingester", ingester.CheckConfig},
	{"sandbox", sandbox.CheckConfig},
	{"investigator", investigator.CheckConfig},
	{"reviewer", reviewer.CheckConfig},
	{"gate", gate.CheckConfig},
	{"bridge", bridge.CheckConfig},
	{"deployer", deployer.CheckConfig},
}

// checkPlatform validates what every process reads (NATS, data and keys
// directories, logs, the bus's delivery settings, the embedded server's
// port), as openFabric and runner.Run read it.
func checkPlatform(getenv func(string) string) error {
	env := config.New(getenv)
	config.GlobalFromEnv(env)
	bus.ConfigFromEnv(env)
	if v := getenv("AGENTK_NATS_PORT"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 0 || n > 65535 {
			env.Failf("AGENTK_NATS_PORT", "want a port number (0 picks a free one), got %q", v)
		}
	}
	return env.Err()
}

// secretName reports whether a variable holds a secret: as the README tables
// declare it (a variable that may be given as <NAME>_FILE, or marked
// "(secret)"); only a variable no table declares is judged by its name.
func secretName(name string) bool {
	if strings.HasSuffix(name, "_FILE") {
		return false // a path, not the secret
	}
	if d := declared(name); d.known {
		return d.secret
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
	for _, kv := range environ(c) {
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
	if warn := unknownVars(environ(c)); len(warn) > 0 {
		fmt.Fprintln(c.stdout, "\nUnknown variables (ignored):")
		for _, w := range warn {
			fmt.Fprintf(c.stdout, "  %s\n", w)
		}
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
	if *only == "" {
		if err := checkOutside(ctx, c); err != nil {
			return err
		}
	}
	if down := reportServiceHealth(ctx, c, c.stdout); down > 0 {
		return fmt.Errorf("%d service(s) of the running agentk are not ready", down)
	}
	return nil
}

// checkServices validates the configuration of roles (every service when
// nil) the way `agentk config` does, and returns every problem of every
// service at once.
func checkServices(getenv func(string) string, roles []string) error {
	var errs []string
	for _, ch := range checkers {
		if roles != nil && !slices.Contains(roles, ch.role) {
			continue
		}
		if err := ch.check(getenv); err != nil {
			errs = append(errs, ch.role+":\n      "+strings.ReplaceAll(err.Error(), "\n", "\n      "))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d service(s) would refuse to start (agentk config shows the whole configuration):\n  %s", errUsage, len(errs), strings.Join(errs, "\n  "))
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// preflight runs before any service starts: it warns about AGENTK_ variables
// no service reads (typos, with the nearest known name) and refuses to start
// when the configuration of any of roles (every service when nil) is bad,
// naming every problem at once.
func preflight(c *cli, log *slog.Logger, roles []string) error {
	for _, w := range unknownVars(environ(c)) {
		log.Warn("unknown variable: " + w)
	}
	return checkServices(c.getenv, roles)
}

// environ lists the variables set in the process's environment as
// NAME=value (c.listEnv in tests).
func environ(c *cli) []string {
	if c.listEnv != nil {
		return c.listEnv()
	}
	return os.Environ()
}

// checkOutside asks the outside services the pipeline depends on, with the
// configured credentials, the same cheap question readiness asks: SigNoz
// (the sandbox's key) and Slack (auth.test, only when Slack is configured).
// A credential refused, or a configured Slack that does not answer, fails
// the command; a SigNoz that cannot be reached from here is a warning only,
// since `agentk config` may run where SigNoz is not (a newcomer's defaults).
func checkOutside(ctx context.Context, c *cli) error {
	fmt.Fprintln(c.stdout, "\nOutside services, asked with the configured credentials:")
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var failed []string
	switch err := sandbox.CheckSigNoz(pctx, c.getenv, time.Now()); {
	case err == nil:
		fmt.Fprintln(c.stdout, "  signoz        ok: answers with the key")
	case errors.Is(err, sandbox.ErrSigNozKeyRejected):
		fmt.Fprintf(c.stdout, "  signoz        FAILED: %v\n", err)
		failed = append(failed, "SigNoz refuses the sandbox's key")
	default:
		fmt.Fprintf(c.stdout, "  signoz        not reachable from here (warning): %v\n", err)
	}
	if err := bridge.CheckSlack(pctx, c.getenv); err != nil {
		fmt.Fprintf(c.stdout, "  slack         FAILED: %v\n", err)
		failed = append(failed, "Slack does not accept the bot token")
	} else {
		fmt.Fprintln(c.stdout, "  slack         ok (or not configured)")
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, "; "))
	}
	return nil
}
