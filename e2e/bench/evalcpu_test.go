package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// BenchmarkEvalCPU is issue 36's figure: the CPU (user and system) of a
// whole `agentk eval --json --investigators … e2e/incidents` process per
// replay, corpus loading included, by this tree's agentk (head) beside the
// agentk of the commit before issue 36's work (base, the "today"),
// run in turn, base first, on the same corpus with the same investigators
// (replayCPUInvestigators). make bench builds both binaries and names them
// in AGENTK_BENCH_EVAL_HEAD and AGENTK_BENCH_EVAL_BASE; without them the
// benchmark says so and skips. CPU, unlike wall time, hardly grows with what
// else the machine runs; the base's pipeline did less work a replay than
// today's (fewer sandbox facts), which the ratio counts against the head.
func BenchmarkEvalCPU(b *testing.B) {
	head, base := os.Getenv("AGENTK_BENCH_EVAL_HEAD"), os.Getenv("AGENTK_BENCH_EVAL_BASE")
	if head == "" || base == "" {
		b.Skip("AGENTK_BENCH_EVAL_HEAD and AGENTK_BENCH_EVAL_BASE name the agentk binaries to compare (make bench builds them)")
	}
	invs := strings.Join(replayCPUInvestigators(), ",")
	var cpu [2]time.Duration
	var replays, errs [2]int
	for range b.N {
		for i, bin := range []string{base, head} {
			c, n, e := evalCPU(b, bin, invs)
			cpu[i] += c
			replays[i] += n
			errs[i] += e
		}
	}
	for i, name := range []string{"base", "head"} {
		if replays[i] == 0 {
			b.Fatalf("%s: no replay ran", name)
		}
		b.ReportMetric(float64(cpu[i].Microseconds())/1000/float64(replays[i]), name+"-cpu-ms/replay")
		b.ReportMetric(float64(replays[i]/b.N), name+"-replays")
		b.ReportMetric(float64(errs[i]), name+"-errors")
	}
}

// evalCPU runs bin's eval of the corpus and returns the process's CPU, the
// replays it printed and how many of them failed.
func evalCPU(b *testing.B, bin, invs string) (cpu time.Duration, replays, errs int) {
	b.Helper()
	cmd := exec.Command(bin, "eval", "--json", "--investigators", invs, corpus)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	// An unsafe scoreboard exits non-zero; the replays are counted either way.
	runErr := cmd.Run()
	if cmd.ProcessState == nil {
		b.Fatalf("%s: %v", bin, runErr)
	}
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			Summary bool   `json:"summary"`
			Error   string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			b.Fatalf("%s: a line that is not JSON: %v: %.200s", bin, err, sc.Text())
		}
		if line.Summary {
			continue
		}
		replays++
		if line.Error != "" {
			errs++
		}
	}
	if replays == 0 {
		b.Fatalf("%s: no replay printed (%v): %.2000s", bin, runErr, stderr.String())
	}
	return cpu, replays, errs
}
