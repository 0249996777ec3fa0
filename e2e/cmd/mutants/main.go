// Command mutants runs `make mutants`: it builds agentk once with
// `-tags agentk_mutants`, checks that the un-mutated build is safe, then
// switches off each safety check of platform/mutant's catalogue in turn
// (AGENTK_MUTANT) and runs that check's killer, which must notice:
//
//   - "eval": `agentk eval` with the adversary personas on mutant.EvalIncidents
//     must turn unsafe (a bad rollback, an unsupported claim published, an
//     out-of-gate action or a repeat action);
//   - "test:<module>:<package>:<regexp>": that test, built with the tag, must fail
//     (and pass without the mutant).
//
// It prints the table mutant → killed by → result and exits 1 when any mutant
// survives or the baseline is unsafe. Run from the repository root.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/platform/mutant"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

// personas are the investigators an "eval" killer replays: every scripted
// persona and the rules.
func personas() string {
	list := []string{"rules"}
	for _, p := range []string{"oracle", "liar", "fabricator", "injected", "wrong", "flaky", "marker", "numbers", "inflated", "replayer", "quality"} {
		list = append(list, "persona:"+p)
	}
	return strings.Join(list, ",")
}

// row is one line of the table. For the baseline, killed means safe.
type row struct {
	name, check, killer, result string
	killed                      bool
	took                        time.Duration
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	only := fs.String("only", "", "comma-separated mutant names (default: every one in the catalogue)")
	invs := fs.String("investigators", personas(), "investigators an eval killer replays")
	incs := fs.String("incidents", strings.Join(mutant.EvalIncidents, ","), "incidents an eval killer replays")
	corpus := fs.String("corpus", "e2e/incidents", "the corpus folder")
	md := fs.String("markdown", "", "also write the table as Markdown to this file")
	parallel := fs.Int("parallel", 2, "replays at once in an eval")
	if err := fs.Parse(args); err != nil {
		return err
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	todo, err := pick(*only)
	if err != nil {
		return err
	}
	started := time.Now()
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("agentk-mutants-%d", os.Getpid()))
	defer func() { _ = os.Remove(bin) }()
	if err := buildAgentk(ctx, root, bin); err != nil {
		return err
	}
	r := &runner{ctx: ctx, root: root, bin: bin, invs: *invs, incs: *incs, corpus: *corpus, parallel: *parallel, passedUnmutated: map[string]bool{}}
	// The baseline: every check on, every investigator safe and no replay failed.
	base := r.baseline()
	rows, failed := []row{base}, !base.killed
	fmt.Fprintf(stdout, "%-28s %s (%s)\n", base.name, base.result, base.took.Round(time.Second))
	for _, m := range todo {
		row := r.mutant(m)
		failed = failed || !row.killed
		rows = append(rows, row)
		fmt.Fprintf(stdout, "%-28s %-8s %s (%s)\n", row.name, map[bool]string{true: "KILLED", false: "SURVIVED"}[row.killed], row.result, row.took.Round(time.Second))
	}
	table := markdown(rows) + fmt.Sprintf("\n%d mutants in %s; eval killers replay `%s` on `%s`.\n", len(todo), time.Since(started).Round(time.Second), *invs, *incs)
	fmt.Fprint(stdout, "\n"+table)
	if *md != "" {
		if err := os.WriteFile(*md, []byte(table), 0o644); err != nil {
			return err
		}
	}
	if failed {
		return errors.New("a mutant survived, a killer erred, or the un-mutated build is unsafe (see the table)")
	}
	return nil
}

// pick returns the mutants named in only (comma-separated), or the whole
// catalogue when only is empty.
func pick(only string) ([]mutant.Mutant, error) {
	if only == "" {
		return mutant.All(), nil
	}
	var todo []mutant.Mutant
	for _, n := range strings.Split(only, ",") {
		m, ok := mutant.Find(strings.TrimSpace(n))
		if !ok {
			return nil, fmt.Errorf("no mutant %q in the catalogue", n)
		}
		todo = append(todo, m)
	}
	return todo, nil
}

// buildAgentk builds agentk with -tags agentk_mutants into bin.
func buildAgentk(ctx context.Context, root, bin string) error {
	build := exec.CommandContext(ctx, "go", "build", "-tags", "agentk_mutants", "-o", bin, ".")
	build.Dir = filepath.Join(root, "services", "agentk")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build agentk with -tags agentk_mutants: %v\n%s", err, out)
	}
	return nil
}

// runner runs the killers against the mutant build.
type runner struct {
	ctx                   context.Context
	root, bin, invs, incs string
	corpus                string
	parallel              int
	passedUnmutated       map[string]bool
}

// eval runs the mutant build's eval with mutant name switched off ("" for
// none) and returns its summary.
func (r *runner) eval(name string) (replay.Summary, error) {
	cmd := exec.CommandContext(r.ctx, r.bin, "eval", "--json", "--parallel", fmt.Sprint(r.parallel),
		"--investigators", r.invs, "--incidents", r.incs, filepath.Join(r.root, r.corpus))
	cmd.Env = append(os.Environ(), "AGENTK_OTEL_DISABLED=1", "AGENTK_MUTANT="+name)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run() // an unsafe eval exits 1; the summary says why
	var s replay.Summary
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var last []byte
	for sc.Scan() {
		last = append(last[:0], sc.Bytes()...)
	}
	if err := json.Unmarshal(last, &s); err != nil || !s.Summary {
		return s, fmt.Errorf("eval printed no summary: %v\n%s", err, tail(errb.String(), 20))
	}
	return s, nil
}

// unsafe lists the investigators an eval found unsafe, and why.
func unsafe(s replay.Summary) []string {
	var out []string
	for _, r := range s.Rows {
		if r.Unsafe() {
			out = append(out, fmt.Sprintf("%s: %d bad rollbacks, %d unsupported, %d out-of-gate, %d repeat", r.Investigator, r.BadRollbacks, r.Unsupported, r.OutOfGateActions, r.RepeatActions))
		}
	}
	return out
}

// baseline evals the build with every check on; its row is "killed" (as in:
// fine) when every investigator stayed safe and no replay failed.
func (r *runner) baseline() row {
	t0 := time.Now()
	s, err := r.eval("")
	base := row{name: "(none)", check: "every check on", killer: "eval"}
	switch {
	case err != nil:
		base.result = "ERROR: " + err.Error()
	case len(unsafe(s)) > 0 || !s.Safe:
		var errs []string
		for _, r := range s.Rows {
			if r.Errors > 0 {
				errs = append(errs, fmt.Sprintf("%s: %d failed replays", r.Investigator, r.Errors))
			}
		}
		base.result = "UNSAFE: " + strings.Join(append(unsafe(s), errs...), "; ")
	default:
		base.result, base.killed = "safe: 0 bad rollbacks, unsupported claims, out-of-gate or repeat actions for every investigator", true
	}
	base.took = time.Since(t0)
	return base
}

// mutant runs m's killer with m switched off.
func (r *runner) mutant(m mutant.Mutant) row {
	rw := row{name: m.Name, check: m.Check, killer: m.KilledBy}
	t0 := time.Now()
	switch {
	case m.KilledBy == "eval":
		s, err := r.eval(m.Name)
		switch u := unsafe(s); {
		case err != nil:
			rw.result = "ERROR: " + err.Error()
		case len(u) > 0:
			rw.killed, rw.result = true, "killed: "+strings.Join(u, "; ")
		default:
			rw.result = "SURVIVED: every investigator stayed safe"
		}
	case strings.HasPrefix(m.KilledBy, "test:"):
		rw.killed, rw.result = r.testKiller(m)
	default:
		rw.result = "ERROR: unknown killer " + m.KilledBy
	}
	rw.took = time.Since(t0)
	return rw
}

// testKiller runs m's killer test, first without the mutant (it must pass),
// then with it (it must fail).
func (r *runner) testKiller(m mutant.Mutant) (bool, string) {
	p := strings.SplitN(m.KilledBy, ":", 4)
	if !r.passedUnmutated[m.KilledBy] {
		if out, err := goTest(r.ctx, r.root, p[1], p[2], p[3], ""); err != nil {
			return false, "ERROR: the killer fails without the mutant:\n" + tail(out, 20)
		}
		r.passedUnmutated[m.KilledBy] = true
	}
	out, err := goTest(r.ctx, r.root, p[1], p[2], p[3], m.Name)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return true, "killed: " + firstFail(out)
	case err != nil:
		return false, "ERROR: " + err.Error()
	default:
		return false, "SURVIVED: the test passed with the check off"
	}
}

// markdown is the table mutant → check → killer → result → time.
func markdown(rows []row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| mutant | check switched off | killed by | result | time |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s |\n", r.name, r.check, r.killer, strings.ReplaceAll(strings.ReplaceAll(r.result, "|", "/"), "\n", " "), r.took.Round(time.Second))
	}
	return b.String()
}

func goTest(ctx context.Context, root, module, pkg, re, name string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-tags", "agentk_mutants", "-count=1", "-run", re, pkg)
	cmd.Dir = filepath.Join(root, module)
	cmd.Env = append(os.Environ(), "AGENTK_OTEL_DISABLED=1", "AGENTK_MUTANT="+name)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func firstFail(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") {
			return strings.TrimSpace(l)
		}
	}
	return "the test failed"
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
