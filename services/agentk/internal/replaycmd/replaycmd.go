// Package replaycmd runs recorded incidents: `agentk replay` (one),
// `agentk eval` (a corpus, scored) and `agentk demo` (two, step by step, or
// the live demo on Docker).
package replaycmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/replay"
	"agentk/contracts/incident"
	"agentk/services/investigator/scripted"
)

// Commands are this package's commands, for internal/cli to register.
func Commands() []command.Command {
	return []command.Command{
		{Name: "demo", Summary: "replay a deployment-class and a runtime incident, step by step (what `make demo` runs)", Run: cmdDemo},
		{Name: "replay", Summary: "replay one recorded incident through every service: agentk replay [--json] <incident-dir>", Run: cmdReplay},
		{Name: "eval", Summary: "replay every incident of a corpus and print the scoreboard: agentk eval [--json] <corpus-dir>", Run: cmdEval},
	}
}

func cmdReplay(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "replay", "replay [--json] [--investigator rules|persona:<name>] <incident-dir>")
	asJSON := fs.Bool("json", false, "print the result as one JSON object on the last line")
	inv := fs.String("investigator", "rules", "rules, or persona:<name> for a scripted model ("+strings.Join(scripted.Personas(), ", ")+")")
	verbose := fs.Bool("v", false, "print the services' logs to stderr")
	timeout := fs.Duration("timeout", 60*time.Second, "give up after this long")
	mcpf := addMCPFlags(fs, c)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one incident folder", command.ErrUsage)
	}
	o := replay.Options{Investigator: *inv, Logger: c.Logger(*verbose), Timeout: *timeout}
	if err := mcpf.options(&o); err != nil {
		return err
	}
	if !*asJSON {
		o.Progress = c.Stdout
	}
	res, err := replay.Run(ctx, fs.Arg(0), o)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(c.Stdout).Encode(res)
	}
	printResult(c, res)
	return nil
}

func printResult(c *command.Env, r replay.Result) {
	fmt.Fprintf(c.Stdout, "\n%s: verdict %s", r.Incident, strings.ToUpper(r.Verdict))
	if len(r.FailedChecks) > 0 {
		fmt.Fprintf(c.Stdout, " (failed: %s)", strings.Join(r.FailedChecks, ", "))
	}
	fmt.Fprintf(c.Stdout, ", action %s", r.Action)
	if r.RollbackTarget != "" && r.Action != "none" {
		fmt.Fprintf(c.Stdout, " → %s", r.RollbackTarget)
	}
	fmt.Fprintf(c.Stdout, "; diagnosis %s (%.2f)", r.Diagnosis, r.Confidence)
	fmt.Fprintf(c.Stdout, "; expected %s / %s\n", r.Expect.RootCause, r.Expect.Verdict)
}

func cmdEval(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "eval", "eval [--json] [--investigators rules,persona:oracle,…|--all] [--markdown FILE] <corpus-dir>")
	asJSON := fs.Bool("json", false, "print one JSON object per incident, then a summary object")
	invs := fs.String("investigators", "rules", "comma-separated investigators to score")
	all := fs.Bool("all", false, "score the rules investigator and every scripted persona")
	md := fs.String("markdown", "", "also write the scoreboard as Markdown to this file")
	verbose := fs.Bool("v", false, "print the services' logs to stderr")
	workers := fs.Int("parallel", 2, "replays at once (each runs its own embedded NATS); persona:flaky's, asleep most of the time, may run one more")
	only := fs.String("incidents", "", "comma-separated incident ids to replay (default: the whole corpus)")
	cpuProfile := fs.String("cpuprofile", "", "write the eval's CPU profile (go tool pprof) to this file")
	mcpf := addMCPFlags(fs, c)
	if err := fs.Parse(args); err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	o := replay.Options{Logger: c.Logger(*verbose)}
	if err := mcpf.options(&o); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one corpus folder", command.ErrUsage)
	}
	// Each incident's telemetry is read by its first replay and let go
	// after its last (replay.Eval): an eval holds the recordings of the
	// incidents in flight, not of the whole corpus.
	corpus, err := incident.LoadCorpusDeferred(fs.Arg(0))
	if err != nil {
		return err
	}
	if *only != "" {
		if corpus, err = pickIncidents(corpus, *only, fs.Arg(0)); err != nil {
			return err
		}
	}
	prov, err := replay.ReadProvenance(fs.Arg(0))
	if err != nil {
		return err
	}
	list := investigatorList(*invs, *all)
	enc := json.NewEncoder(c.Stdout)
	n, total := 0, len(corpus)*len(list)
	defer replay.TuneGC()()
	outs := replay.Eval(ctx, corpus, list, o, *workers, func(o replay.Outcome) {
		n++
		if *asJSON {
			_ = enc.Encode(o)
			return
		}
		status := o.Verdict
		if o.Error != "" {
			status = "ERROR " + o.Error
		} else if o.BadRollback() {
			status += "  BAD ROLLBACK"
		}
		fmt.Fprintf(c.Stderr, "[%3d/%d] %-16s %-44s %-6s %-20s %s\n", n, total, o.Investigator, o.Incident, o.Verdict, o.Diagnosis, status)
	})
	s := replay.Score(outs)
	if *asJSON {
		_ = enc.Encode(s)
	} else {
		replay.Markdown(c.Stdout, fs.Arg(0), outs, s, time.Now())
		replay.MarkdownCorpus(c.Stdout, prov, outs)
	}
	if *md != "" {
		if err := writeScoreboard(*md, filepath.Base(fs.Arg(0)), prov, outs, s); err != nil {
			return err
		}
	}
	if !s.Safe {
		return fmt.Errorf("unsafe: a bad rollback, an unsupported claim published, an out-of-gate action, a repeat action or a failed replay (see the scoreboard)")
	}
	return nil
}

// investigatorList is --investigators split at commas, or with --all the
// rules investigator and every scripted persona.
func investigatorList(invs string, all bool) []string {
	if !all {
		return strings.Split(invs, ",")
	}
	list := []string{"rules"}
	for _, p := range scripted.Personas() {
		list = append(list, "persona:"+p)
	}
	return list
}

// startCPUProfile starts writing the process's CPU profile to path (nothing
// when path is empty); the returned function stops and closes it.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

// pickIncidents keeps the incidents of corpus named in only (comma-separated
// ids), in that order.
func pickIncidents(corpus []*incident.Incident, only, dir string) ([]*incident.Incident, error) {
	byID := map[string]*incident.Incident{}
	for _, inc := range corpus {
		byID[inc.Meta.ID] = inc
	}
	var out []*incident.Incident
	for _, id := range strings.Split(only, ",") {
		inc, ok := byID[strings.TrimSpace(id)]
		if !ok {
			return nil, fmt.Errorf("%w: --incidents: no incident %q in %s", command.ErrUsage, id, dir)
		}
		out = append(out, inc)
	}
	return out, nil
}

// writeScoreboard writes the eval's scoreboard as Markdown to path.
func writeScoreboard(path, corpus string, prov replay.Provenance, outs []replay.Outcome, s replay.Summary) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	replay.Markdown(f, corpus, outs, s, time.Now())
	replay.MarkdownCorpus(f, prov, outs)
	return f.Close()
}
