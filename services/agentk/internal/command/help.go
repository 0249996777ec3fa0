package command

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
)

// builtins are the commands about the command line itself, listed after
// every registered one.
func builtins() []Command {
	return []Command{
		{Name: "help", Summary: "print a command's usage, flags and the environment variables it reads: agentk help <command>", Run: cmdHelp},
		{Name: "version", Summary: "print the version of this binary (module version, VCS revision, Go version)", Run: cmdVersion},
		{Name: "completion", Summary: "print a shell completion script: agentk completion bash|zsh", Run: cmdCompletion},
	}
}

// version is set at link time in package main (go build -ldflags "-X
// main.version=v1.2.3"), which hands it to Main. Empty means: read it from the
// build information.
var version string

// versionInfo describes the binary from the -ldflags override or the build
// information Go embeds (module version, VCS revision, time, modified).
func versionInfo(bi *debug.BuildInfo, ok bool) string {
	v := version
	var rev, when, dirty, goVersion string
	if ok {
		goVersion = bi.GoVersion
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " (modified)"
				}
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	out := "agentk " + v
	if rev != "" {
		out += " " + rev[:min(len(rev), 12)] + dirty
		if when != "" {
			out += " " + when
		}
	}
	if goVersion != "" {
		out += " " + goVersion
	}
	return out
}

func cmdVersion(ctx context.Context, c *Env, args []string) error {
	fs := NewFlags(c, "version", "version")
	if err := fs.Parse(args); err != nil {
		return err
	}
	bi, ok := debug.ReadBuildInfo()
	fmt.Fprintln(c.Stdout, versionInfo(bi, ok))
	return nil
}

func cmdHelp(ctx context.Context, c *Env, args []string) error {
	fs := NewFlags(c, "help", "help <command>")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one command", ErrUsage)
	}
	if _, err := commandFlags(ctx, c, fs.Arg(0), c.Stdout); err != nil {
		return err
	}
	return nil
}

// commandFlags runs command name with -h, its usage written to w, and
// returns the flag set it made.
func commandFlags(ctx context.Context, c *Env, name string, w io.Writer) (*flag.FlagSet, error) {
	for _, cmd := range Commands() {
		if cmd.Name != name {
			continue
		}
		probe := &Env{Stdout: io.Discard, Stderr: w, Stdin: strings.NewReader(""), Getenv: c.Getenv}
		err := cmd.Run(ctx, probe, []string{"-h"})
		if probe.Flags == nil || (err != nil && err != flag.ErrHelp) {
			return nil, fmt.Errorf("%s: no usage (%v)", name, err)
		}
		return probe.Flags, nil
	}
	return nil, fmt.Errorf("%w: unknown command %q (agentk help lists them)", ErrUsage, name)
}

// completionSpec is each command and its flags ("--name"), for completion.
func completionSpec(ctx context.Context, c *Env) (names []string, flags map[string][]string) {
	flags = map[string][]string{}
	for _, cmd := range Commands() {
		names = append(names, cmd.Name)
		fs, err := commandFlags(ctx, c, cmd.Name, io.Discard)
		if err != nil {
			continue
		}
		fs.VisitAll(func(f *flag.Flag) { flags[cmd.Name] = append(flags[cmd.Name], "--"+f.Name) })
		sort.Strings(flags[cmd.Name])
	}
	return names, flags
}

func cmdCompletion(ctx context.Context, c *Env, args []string) error {
	fs := NewFlags(c, "completion", "completion bash|zsh   (bash: source <(agentk completion bash); zsh: agentk completion zsh > \"${fpath[1]}/_agentk\")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || !slices.Contains([]string{"bash", "zsh"}, fs.Arg(0)) {
		fs.Usage()
		return fmt.Errorf("%w: want bash or zsh", ErrUsage)
	}
	names, flags := completionSpec(ctx, c)
	var b bytes.Buffer
	if fs.Arg(0) == "bash" {
		bashCompletion(&b, names, flags)
	} else {
		zshCompletion(&b, names, flags)
	}
	_, err := c.Stdout.Write(b.Bytes())
	return err
}

func bashCompletion(w io.Writer, names []string, flags map[string][]string) {
	fmt.Fprintf(w, `# bash completion for agentk: source <(agentk completion bash)
_agentk() {
	local cur=${COMP_WORDS[COMP_CWORD]} flags=""
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W %q -- "$cur"))
		return
	fi
	case ${COMP_WORDS[1]} in
`, strings.Join(names, " "))
	for _, n := range names {
		if len(flags[n]) > 0 {
			fmt.Fprintf(w, "\t%s) flags=%q ;;\n", n, strings.Join(flags[n], " "))
		}
	}
	fmt.Fprint(w, `	help) COMPREPLY=($(compgen -W "`+strings.Join(names, " ")+`" -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _agentk agentk
`)
}

func zshCompletion(w io.Writer, names []string, flags map[string][]string) {
	fmt.Fprint(w, "#compdef agentk\n# zsh completion for agentk: agentk completion zsh > \"${fpath[1]}/_agentk\"\n_agentk() {\n\tlocal -a commands\n\tcommands=(\n")
	for _, n := range names {
		fmt.Fprintf(w, "\t\t%q\n", n)
	}
	fmt.Fprint(w, "\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe command commands\n\t\treturn\n\tfi\n\tcase $words[2] in\n")
	for _, n := range names {
		if len(flags[n]) > 0 {
			fmt.Fprintf(w, "\t%s) _arguments '*:file:_files'", n)
			for _, f := range flags[n] {
				fmt.Fprintf(w, " '%s[]'", f)
			}
			fmt.Fprint(w, " ;;\n")
		}
	}
	fmt.Fprint(w, "\thelp) _describe command commands ;;\n\t*) _files ;;\n\tesac\n}\nif [ \"$funcstack[1]\" = \"_agentk\" ]; then\n\t_agentk \"$@\"\nelse\n\tcompdef _agentk agentk\nfi\n")
}
