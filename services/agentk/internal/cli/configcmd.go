package cli

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

	"agentk/cmd/agentk/internal/envdoc"
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

// checkPlatform validates what every process reads (NATS, data and keys
// directories, logs, the bus's delivery settings, the embedded server's
// port), as declared in config.Platform.
func checkPlatform(getenv func(string) string) error {
	return config.Platform.Read(getenv).Err()
}

// redact hides declared secrets and credentials in URLs. A variable nothing
// declares is never shown, so its name is not judged.
func redact(name, value string) string {
	if envdoc.Secret(name) && value != "" {
		return config.Redacted
	}
	if i := strings.Index(value, "://"); i >= 0 {
		if at := strings.Index(value[i+3:], "@"); at >= 0 {
			return value[:i+3] + config.Redacted + "@" + value[i+3+at+1:]
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
	printSetVars(c)
	g, err := globalConfig(c)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "\nNATS: %s; data dir %s; keys %s\n", orDefault(redact(config.EnvNATSURL, g.NATSURL), "embedded server"), g.DataDir, g.KeysDir)
	if bad := printChecks(c.stdout, c.getenv, *only); bad > 0 {
		return fmt.Errorf("%d service(s) would refuse to start", bad)
	}
	if *only == "" {
		if err := checkLinkBases(c.getenv); err != nil {
			fmt.Fprintf(c.stdout, "\nCross-check FAILED: %v\n", err)
			return err
		}
		if err := checkOutside(ctx, c); err != nil {
			return err
		}
	}
	if down := reportServiceHealth(ctx, c, c.stdout); down > 0 {
		return fmt.Errorf("%d service(s) of the running agentk are not ready", down)
	}
	return nil
}

// printSetVars lists the declared variables that are set, secrets redacted,
// then the AGENTK_ variables nothing declares (their names only).
func printSetVars(c *cli) {
	fmt.Fprintln(c.stdout, "Set in the environment (secrets redacted; everything else takes its default, see docs/configuration.md):")
	n := 0
	for _, name := range envdoc.KnownNames() {
		if v := c.getenv(name); v != "" {
			fmt.Fprintf(c.stdout, "  %s=%s\n", name, redact(name, v))
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(c.stdout, "  (nothing: every variable at its default)")
	}
	if warn := envdoc.UnknownVars(environ(c)); len(warn) > 0 {
		fmt.Fprintln(c.stdout, "\nUnknown variables (ignored):")
		for _, w := range warn {
			fmt.Fprintf(c.stdout, "  %s\n", w)
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
	for _, w := range envdoc.UnknownVars(environ(c)) {
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
