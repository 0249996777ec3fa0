// Package configcmd is `agentk config` and the checks behind it: every
// declared variable read as the services read it, the settings that must
// agree across services, the outside services asked with the configured
// credentials, and the preflight `agentk up` runs before anything starts.
package configcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/envdoc"
	"agentk/cmd/agentk/internal/operator"
	"agentk/platform/config"
	"agentk/platform/service"
	"agentk/services/bridge"
	"agentk/services/sandbox"
)

// checker validates one component's configuration exactly as its Run does.
type checker struct {
	role  string
	check func(func(string) string) error
}

// checkers are the platform's and every registered service's.
func checkers() []checker {
	out := []checker{{"platform", checkPlatform}}
	for _, r := range service.Registered() {
		out = append(out, checker{r.Role, r.Check})
	}
	return out
}

// Commands are this package's commands, for internal/cli to register.
func Commands() []command.Command {
	return []command.Command{{Name: "config", Summary: "print the effective configuration, secrets redacted", Run: cmdConfig}}
}

// checkPlatform validates what every process reads (NATS, data and keys
// directories, logs, the bus's delivery settings, the embedded server's
// port), as declared in config.Platform.
func checkPlatform(getenv func(string) string) error {
	return config.Platform.Read(getenv).Err()
}

func cmdConfig(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "config", "config [--service NAME | --all]")
	only := fs.String("service", "", "check only this service's configuration")
	all := fs.Bool("all", false, "check every service against this environment even when AGENTK_NATS_URL says they run elsewhere")
	if err := fs.Parse(args); err != nil {
		return err
	}
	printSetVars(c)
	g, err := c.Global()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "\nNATS: %s; data dir %s; keys %s\n", orDefault(envdoc.Redact(config.EnvNATSURL, g.NATSURL), "embedded server"), g.DataDir, g.KeysDir)
	if elsewhere(c, *only, *all) {
		if bad := checkOperator(ctx, c); bad > 0 {
			return fmt.Errorf("%d check(s) of the operator's commands failed", bad)
		}
		return nil
	}
	if bad := printChecks(c.Stdout, c.Getenv, *only); bad > 0 {
		return fmt.Errorf("%d service(s) would refuse to start", bad)
	}
	if *only == "" {
		if err := checkLinkBases(c.Getenv); err != nil {
			fmt.Fprintf(c.Stdout, "\nCross-check FAILED: %v\n", err)
			return err
		}
		if err := checkOutside(ctx, c); err != nil {
			return err
		}
	}
	if down := operator.ReportServiceHealth(ctx, c, c.Stdout); down > 0 {
		return fmt.Errorf("%d service(s) of the running agentk are not ready", down)
	}
	return nil
}

// printSetVars lists the declared variables that are set, secrets redacted,
// then the AGENTK_ variables nothing declares (their names only).
func printSetVars(c *command.Env) {
	fmt.Fprintln(c.Stdout, "Set in the environment (secrets redacted; everything else takes its default, see docs/configuration.md):")
	n := 0
	for _, name := range envdoc.KnownNames() {
		if v := c.Getenv(name); v != "" {
			fmt.Fprintf(c.Stdout, "  %s=%s\n", name, envdoc.Redact(name, v))
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(c.Stdout, "  (nothing: every variable at its default)")
	}
	if warn := envdoc.UnknownVars(environ(c)); len(warn) > 0 {
		fmt.Fprintln(c.Stdout, "\nUnknown variables (ignored):")
		for _, w := range warn {
			fmt.Fprintf(c.Stdout, "  %s\n", w)
		}
	}
}

// printChecks checks each component (only one when only is set) and writes
// ok or every problem; it returns how many would refuse to start.
func printChecks(w io.Writer, getenv func(string) string, only string) int {
	fmt.Fprintln(w, "\nEach service's configuration, read as its Run reads it:")
	bad := 0
	for _, ch := range checkers() {
		if only != "" && ch.role != only {
			continue
		}
		err := ch.check(getenv)
		if err == nil {
			fmt.Fprintf(w, "  %-13s ok\n", ch.role)
			continue
		}
		bad++
		fmt.Fprintf(w, "  %-13s INVALID\n", ch.role)
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(w, "      %s\n", line)
		}
	}
	return bad
}

// checkServices validates the platform's configuration and that of roles
// (every service when nil) the way `agentk config` does, and returns every
// problem of every service at once.
func checkServices(getenv func(string) string, roles []string) error {
	var errs []string
	for _, ch := range checkers() {
		if roles != nil && ch.role != "platform" && !slices.Contains(roles, ch.role) {
			continue
		}
		if err := ch.check(getenv); err != nil {
			errs = append(errs, ch.role+":\n      "+strings.ReplaceAll(err.Error(), "\n", "\n      "))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d service(s) would refuse to start (agentk config shows the whole configuration):\n  %s", command.ErrUsage, len(errs), strings.Join(errs, "\n  "))
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Preflight runs before any service starts: it warns about AGENTK_ variables
// no service reads (typos, with the nearest known name) and refuses to start
// when the configuration of any of roles (every service when nil) is bad,
// naming every problem at once.
func Preflight(c *command.Env, log *slog.Logger, roles []string) error {
	for _, w := range envdoc.UnknownVars(environ(c)) {
		log.Warn("unknown variable: " + w)
	}
	return checkServices(c.Getenv, roles)
}

// environ lists the variables set in the process's environment as
// NAME=value (c.ListEnv in tests).
func environ(c *command.Env) []string {
	if c.ListEnv != nil {
		return c.ListEnv()
	}
	return os.Environ()
}

// checkOutside asks the outside services the pipeline depends on, with the
// configured credentials, the same cheap question readiness asks: SigNoz
// (the sandbox's key) and Slack (auth.test, only when Slack is configured).
// A credential refused, or a configured Slack that does not answer, fails
// the command; a SigNoz that cannot be reached from here is a warning only,
// since `agentk config` may run where SigNoz is not (a newcomer's defaults).
func checkOutside(ctx context.Context, c *command.Env) error {
	fmt.Fprintln(c.Stdout, "\nOutside services, asked with the configured credentials:")
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var failed []string
	switch err := sandbox.CheckSigNoz(pctx, c.Getenv, time.Now()); {
	case err == nil:
		fmt.Fprintln(c.Stdout, "  signoz        ok: answers with the key")
	case errors.Is(err, sandbox.ErrSigNozKeyRejected):
		fmt.Fprintf(c.Stdout, "  signoz        FAILED: %v\n", err)
		failed = append(failed, "SigNoz refuses the sandbox's key")
	default:
		fmt.Fprintf(c.Stdout, "  signoz        not reachable from here (warning): %v\n", err)
	}
	switch configured, err := bridge.CheckSlack(pctx, c.Getenv); {
	case err != nil:
		fmt.Fprintf(c.Stdout, "  slack         FAILED: %v\n", err)
		failed = append(failed, "Slack does not accept the bot token")
	case configured:
		fmt.Fprintln(c.Stdout, "  slack         ok: auth.test accepts the bot token")
	default:
		fmt.Fprintln(c.Stdout, "  slack         not configured (AGENTK_SLACK_BOT_TOKEN unset): answers come from the console and the CLI")
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, "; "))
	}
	return nil
}
