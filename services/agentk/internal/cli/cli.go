// Package cli is agentk's command line: the command registry, flags, help and
// completion, and the commands themselves. Package main only hands it the
// process (Main).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"agentk/cmd/agentk/internal/envdoc"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *cli, args []string) error
}

// cli is what every command is handed: the process's I/O and environment.
type cli struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string

	// connectTimeout bounds an operator command's connection to NATS or
	// the bridge (--connect-timeout, AGENTK_CONNECT_TIMEOUT).
	connectTimeout time.Duration
	// flags is the flag set the command made last (help and completion
	// read a command's flags by running it with -h).
	flags *flag.FlagSet
	// listEnv lists the environment as NAME=value (os.Environ when nil).
	listEnv func() []string
}

var errUsage = errors.New("usage")

// registry holds every command; files add theirs with register in init, so a
// new command is a new file.
var registry []command

func register(c command) { registry = append(registry, c) }

func init() {
	register(command{"up", "run every service in one process over embedded NATS (or AGENTK_NATS_URL)", cmdUp})
	register(command{"demo", "replay a deployment-class and a runtime incident, step by step (what `make demo` runs)", cmdDemo})
	register(command{"replay", "replay one recorded incident through every service: agentk replay [--json] <incident-dir>", cmdReplay})
	register(command{"eval", "replay every incident of a corpus and print the scoreboard: agentk eval [--json] <corpus-dir>", cmdEval})
	register(command{"keys", "create (or keep) every service's nkey and the keyring in AGENTK_KEYS_DIR", cmdKeys})
	register(command{"config", "print the effective configuration, secrets redacted", cmdConfig})
}

// commands returns the registered commands, then one per service.
func commands() []command {
	cmds := append([]command(nil), registry...)
	for _, s := range serviceNames() {
		s := s
		cmds = append(cmds, command{s, "run the " + s + " service alone against AGENTK_NATS_URL", func(ctx context.Context, c *cli, args []string) error {
			return cmdService(ctx, c, s, args)
		}})
	}
	return cmds
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `agentk — alerts in, evidence-backed investigation, a gate in plain Go, a human's signed yes, a verified rollback.

Usage: agentk <command> [flags] [args]

Commands:`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, `
Flags go before or after arguments. "agentk help <command>" (or "agentk <command> -h")
prints a command's flags and the variables it reads. Configuration is read from
AGENTK_* environment variables: see docs/configuration.md, or "agentk config".
Shell completion: source <(agentk completion bash).`)
}

// Main runs the command line args (without the program's name) on the
// process's I/O and environment, until the command ends or SIGINT/SIGTERM,
// and returns the exit code. release names the binary's version when set at
// link time (agentk version).
func Main(args []string, release string) int {
	if release != "" {
		version = release
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := &cli{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, getenv: os.Getenv}
	return run(ctx, c, args)
}

// run dispatches to a command and returns the process exit code: 0 success,
// 1 failure, 2 bad usage.
func run(ctx context.Context, c *cli, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || (args[0] == "help" && len(args) == 1) {
		usage(c.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, cmd := range commands() {
		if cmd.name != args[0] {
			continue
		}
		err := cmd.run(ctx, c, args[1:])
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintln(c.stderr, "agentk "+cmd.name+":", err)
			return 2
		default:
			fmt.Fprintln(c.stderr, "agentk "+cmd.name+":", err)
			var ex exitCode
			if errors.As(err, &ex) {
				return int(ex)
			}
			return 1
		}
	}
	fmt.Fprintf(c.stderr, "agentk: unknown command %q\n\n", args[0])
	usage(c.stderr)
	return 2
}

// exitCode lets a command choose its exit status.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// operatorCommands reach a running pipeline (NATS or the bridge's API): each
// takes --connect-timeout, and gives up with a clear error when nothing answers.
var operatorCommands = []string{"report", "incidents", "audit", "shadow-report", "decisions", "deadletters", "freeze", "unfreeze", "approve", "deny"}

// defaultConnectTimeout bounds an operator command's connection when neither
// --connect-timeout nor AGENTK_CONNECT_TIMEOUT says otherwise.
const defaultConnectTimeout = 5 * time.Second

// flagSet is a flag.FlagSet whose Parse accepts flags anywhere among the
// positional arguments (`replay <dir> --investigator persona:liar`), as most
// command lines do; everything after "--" is positional.
type flagSet struct {
	*flag.FlagSet
}

// Parse parses flags interspersed with arguments; Args then returns the
// positional arguments in order.
func (fs *flagSet) Parse(args []string) error {
	var pos []string
	for {
		if err := fs.FlagSet.Parse(args); err != nil {
			return err
		}
		rest := fs.FlagSet.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			pos = append(pos, rest...) // after "--": all positional
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	return fs.FlagSet.Parse(append([]string{"--"}, pos...))
}

// newFlags returns a flag set that prints usage to stderr and returns errors.
// Its usage lists the command's flags and the environment variables it reads.
// Operator commands get --connect-timeout.
func newFlags(c *cli, name, usageLine string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: agentk %s\n\n", usageLine)
		if s := summaryOf(name); s != "" {
			fmt.Fprintf(fs.Output(), "%s\n\n", s)
		}
		fmt.Fprintln(fs.Output(), "Flags:")
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			fmt.Fprintln(fs.Output(), "  (none)")
		}
		fs.PrintDefaults()
		envdoc.PrintCommand(fs.Output(), name)
	}
	if slices.Contains(operatorCommands, name) {
		def := defaultConnectTimeout
		if v := c.getenv("AGENTK_CONNECT_TIMEOUT"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				d = -1 // refused by withConnectTimeout, naming the variable
			}
			def = d
		}
		fs.DurationVar(&c.connectTimeout, "connect-timeout", def, "give up when NATS or the bridge has not answered by then (AGENTK_CONNECT_TIMEOUT)")
	}
	c.flags = fs
	return &flagSet{fs}
}

// withConnectTimeout bounds ctx by the operator command's connect timeout.
func (c *cli) withConnectTimeout(ctx context.Context) (context.Context, context.CancelFunc, error) {
	d := c.connectTimeout
	if d == 0 {
		d = defaultConnectTimeout
	}
	if d < 0 {
		return nil, nil, fmt.Errorf("%w: AGENTK_CONNECT_TIMEOUT=%q (or --connect-timeout): want a positive duration such as 5s", errUsage, c.getenv("AGENTK_CONNECT_TIMEOUT"))
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

// summaryOf returns the registered summary of command name.
func summaryOf(name string) string {
	for _, c := range commands() {
		if c.name == name {
			return c.summary
		}
	}
	return ""
}
