package bench

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/contracts/incident"
)

// replayCPUInvestigators are the investigators BenchmarkReplayCPU replays
// the corpus with (AGENTK_BENCH_REPLAY_INVESTIGATORS narrows or widens them).
func replayCPUInvestigators() []string {
	if s := os.Getenv("AGENTK_BENCH_REPLAY_INVESTIGATORS"); s != "" {
		return strings.Split(s, ",")
	}
	return []string{"rules", "persona:oracle", "persona:liar"}
}

// BenchmarkReplayCPU is the CPU (user and system, of this process: the
// fake SigNoz, the NATS servers and every service run in it) one replay of
// the corpus costs, two at a time as `agentk eval` runs them:
//
//   - eval: replay.Eval, as `make eval` replays (issue 36): each incident's
//     telemetry indexed once and its query answers kept, incident by
//     incident and let go after its last replay, the NATS store in
//     /dev/shm, each replay's servers stopped in the background, the
//     collector at replay.EvalGCPercent;
//   - alone: each replay on its own, as every replay ran before issue 36:
//     its own fake SigNoz telemetry, its NATS store on the disk's temporary
//     folder, its servers stopped before the next starts.
//
// Both halves replay the same loaded incidents with the same investigators;
// loading the corpus is not counted. CPU, unlike wall time, does not grow
// with what else the machine runs.
func BenchmarkReplayCPU(b *testing.B) {
	incs, err := incident.LoadCorpus(corpus)
	if err != nil {
		b.Fatal(err)
	}
	invs := replayCPUInvestigators()
	o := replay.Options{Timeout: 120 * time.Second}
	b.Run("eval", func(b *testing.B) {
		defer replay.TuneGC()()
		for range b.N {
			cpu := processCPU(b)
			outs := replay.Eval(context.Background(), incs, invs, o, 2, nil)
			reportReplayCPU(b, cpu, len(outs), failed(outs))
		}
	})
	b.Run("alone", func(b *testing.B) {
		for range b.N {
			cpu := processCPU(b)
			n, errs := replayAlone(b, incs, invs, o)
			reportReplayCPU(b, cpu, n, errs)
		}
	})
}

func failed(outs []replay.Outcome) int {
	n := 0
	for _, oc := range outs {
		if oc.Error != "" {
			n++
		}
	}
	return n
}

// replayAlone replays every incident for each investigator, two at a time,
// each replay on its own with its NATS store in a folder of the system's
// temporary folder (on the disk unless TMPDIR says otherwise).
func replayAlone(b *testing.B, incs []*incident.Incident, invs []string, o replay.Options) (n, errs int) {
	type job struct {
		inv string
		inc *incident.Incident
	}
	jobs := make(chan job)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				ro := o
				ro.Investigator = j.inv
				dir, err := os.MkdirTemp("", "agentk-bench-replay-")
				if err == nil {
					ro.DataDir = dir
					_, err = replay.RunIncident(context.Background(), j.inc, ro)
					_ = os.RemoveAll(dir)
				}
				mu.Lock()
				n++
				if err != nil {
					errs++
					b.Logf("%s %s: %v", j.inv, j.inc.Meta.ID, err)
				}
				mu.Unlock()
			}
		}()
	}
	for _, inv := range invs {
		for _, inc := range incs {
			jobs <- job{inv, inc}
		}
	}
	close(jobs)
	wg.Wait()
	return n, errs
}

func reportReplayCPU(b *testing.B, since time.Duration, replays, errs int) {
	if replays == 0 {
		b.Fatal("no replay ran")
	}
	used := processCPU(b) - since
	b.ReportMetric(float64(used.Microseconds())/1000/float64(replays), "cpu-ms/replay")
	b.ReportMetric(float64(replays), "replays")
	b.ReportMetric(float64(errs), "errors")
}
