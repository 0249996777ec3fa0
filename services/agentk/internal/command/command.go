// Package command is the frame of agentk's command line: the registry every
// command package adds its commands to, the environment a command is handed,
// flags that may follow arguments, the dispatcher with its exit codes, and the
// commands about the command line itself (help, version, completion). It
// knows no command but those: internal/cli composes the rest.
package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"agentk/cmd/agentk/internal/envdoc"
	"agentk/platform/config"
)

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, env *Env, args []string) error
	// Operator commands reach a running pipeline (NATS or the bridge's
	// API): each takes --connect-timeout, and gives up with a clear error
	// when nothing answers.
	Operator bool
}

// Env is what every command is handed: the process's I/O and environment.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Getenv         func(string) string

	// ConnectTimeout bounds an operator command's connection to NATS or
	// the bridge (--connect-timeout, AGENTK_CONNECT_TIMEOUT).
	ConnectTimeout time.Duration
	// Flags is the flag set the command made last (help and completion
	// read a command's flags by running it with -h).
	Flags *flag.FlagSet
	// ListEnv lists the environment as NAME=value (os.Environ when nil).
	ListEnv func() []string
}

// ErrUsage is a command line the command cannot run: exit status 2.
var ErrUsage = errors.New("usage")

// ErrNoPipeline is returned by operator commands when neither NATS nor the
// bridge answers.
var ErrNoPipeline = errors.New("no pipeline reachable")

// registry holds every command: internal/cli registers each package's
// Commands, in the order `agentk help` lists them.
var registry []Command

// Register adds cs to the command line, in order. A name registered twice
// is a programming error and panics at start-up.
func Register(cs ...Command) {
	for _, c := range cs {
		if _, ok := Lookup(c.Name); ok {
			panic("command: " + c.Name + " registered twice")
		}
		registry = append(registry, c)
	}
}

// Commands returns the registered commands, in registration order, then
// help, version and completion.
func Commands() []Command { return append(append([]Command(nil), registry...), builtins()...) }

// Lookup returns the command called name.
func Lookup(name string) (Command, bool) {
	for _, c := range Commands() {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `agentk — alerts in, evidence-backed investigation, a gate in plain Go, a human's signed yes, a verified rollback.

Usage: agentk <command> [flags] [args]

Commands:`)
	for _, c := range Commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.Name, c.Summary)
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
	c := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Getenv: os.Getenv}
	return Run(ctx, c, args)
}

// Run dispatches to a command and returns the process exit code: 0 success,
// 1 failure, 2 bad usage.
func Run(ctx context.Context, c *Env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || (args[0] == "help" && len(args) == 1) {
		usage(c.Stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := Lookup(args[0])
	if !ok {
		fmt.Fprintf(c.Stderr, "agentk: unknown command %q\n\n", args[0])
		usage(c.Stderr)
		return 2
	}
	err := cmd.Run(ctx, c, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintln(c.Stderr, "agentk "+cmd.Name+":", err)
		return 2
	default:
		fmt.Fprintln(c.Stderr, "agentk "+cmd.Name+":", err)
		var ex ExitCode
		if errors.As(err, &ex) {
			return int(ex)
		}
		return 1
	}
}

// ExitCode lets a command choose its exit status.
type ExitCode int

func (e ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// DefaultConnectTimeout bounds an operator command's connection when neither
// --connect-timeout nor AGENTK_CONNECT_TIMEOUT says otherwise.
const DefaultConnectTimeout = 5 * time.Second

// FlagSet is a flag.FlagSet whose Parse accepts flags anywhere among the
// positional arguments (`replay <dir> --investigator persona:liar`), as most
// command lines do; everything after "--" is positional.
type FlagSet struct {
	*flag.FlagSet
}

// Parse parses flags interspersed with arguments; Args then returns the
// positional arguments in order.
func (fs *FlagSet) Parse(args []string) error {
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

// NewFlags returns a flag set that prints usage to stderr and returns errors.
// Its usage lists the command's flags and the environment variables it reads.
// Operator commands get --connect-timeout.
func NewFlags(c *Env, name, usageLine string) *FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	cmd, _ := Lookup(name)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: agentk %s\n\n", usageLine)
		if cmd.Summary != "" {
			fmt.Fprintf(fs.Output(), "%s\n\n", cmd.Summary)
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
	if cmd.Operator {
		def := DefaultConnectTimeout
		if v := c.Getenv("AGENTK_CONNECT_TIMEOUT"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				d = -1 // refused by WithConnectTimeout, naming the variable
			}
			def = d
		}
		fs.DurationVar(&c.ConnectTimeout, "connect-timeout", def, "give up when NATS or the bridge has not answered by then (AGENTK_CONNECT_TIMEOUT)")
	}
	c.Flags = fs
	return &FlagSet{fs}
}

// WithConnectTimeout bounds ctx by the operator command's connect timeout.
func (c *Env) WithConnectTimeout(ctx context.Context) (context.Context, context.CancelFunc, error) {
	d := c.ConnectTimeout
	if d == 0 {
		d = DefaultConnectTimeout
	}
	if d < 0 {
		return nil, nil, fmt.Errorf("%w: AGENTK_CONNECT_TIMEOUT=%q (or --connect-timeout): want a positive duration such as 5s", ErrUsage, c.Getenv("AGENTK_CONNECT_TIMEOUT"))
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

// Timeout is the effective connect timeout.
func (c *Env) Timeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return DefaultConnectTimeout
}

// Global reads what every process reads (platform/config/global.go): a bad
// value, such as an unknown AGENTK_LOG_LEVEL, is refused.
func (c *Env) Global() (config.Global, error) {
	env := config.New(c.Getenv)
	g := config.GlobalFromEnv(env)
	if err := env.Err(); err != nil {
		return g, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return g, nil
}

// DataDir is AGENTK_DATA_DIR, or its default.
func (c *Env) DataDir() string {
	g, _ := c.Global()
	return g.DataDir
}

// KeysDir is AGENTK_KEYS_DIR, or its default.
func (c *Env) KeysDir() string {
	g, _ := c.Global()
	return g.KeysDir
}

// ProdLogger is the process's logger as config.Global builds it. Commands
// that start services refuse a bad AGENTK_LOG_LEVEL in their preflight (the
// platform's check, config.Platform); until then it logs at the default.
func (c *Env) ProdLogger() *slog.Logger {
	g, _ := c.Global()
	return g.Logger(c.Stderr)
}

// Logger is a command's own logger: debug text on stderr when verbose,
// else nothing.
func (c *Env) Logger(verbose bool) *slog.Logger {
	if !verbose {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
