package bench

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/contracts/incident"
	"agentk/services/investigator/scripted"
)

// budgetLog records the investigator's effective token budget from the
// configuration it logs at start ("config" group, max_tokens), so the budget
// beside the figure is the one the run used, not a number copied here.
type budgetLog struct {
	mu  *sync.Mutex
	max *int64
}

func (h budgetLog) Enabled(context.Context, slog.Level) bool { return true }
func (h budgetLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h budgetLog) WithGroup(string) slog.Handler            { return h }
func (h budgetLog) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "config" {
			return true
		}
		v := a.Value.Resolve()
		if v.Kind() != slog.KindGroup {
			return true
		}
		for _, g := range v.Group() {
			if g.Key == "max_tokens" && g.Value.Kind() == slog.KindInt64 {
				h.mu.Lock()
				*h.max = g.Value.Resolve().Int64()
				h.mu.Unlock()
			}
		}
		return true
	})
	return nil
}

// investigators are the rules investigator and every scripted persona.
func investigators() []string {
	out := []string{"rules"}
	for _, p := range scripted.Personas() {
		out = append(out, "persona:"+p)
	}
	return out
}

// BenchmarkTokens replays the whole corpus per investigator (the rules and
// each scripted persona, through all seven services, as `agentk eval` does)
// and reports tokens in+out per investigation beside the investigator's own
// token budget as it logged it. The replays of every investigator run in one
// pool of AGENTK_BENCH_PARALLEL (default 6) at a time; each sub-benchmark
// reports its investigator's figures (its ns/op is not a measurement: tokens
// do not depend on time). AGENTK_BENCH_PERSONAS (comma-separated) narrows
// the set.
func BenchmarkTokens(b *testing.B) {
	incs, err := incident.LoadCorpus(corpus)
	if err != nil {
		b.Fatal(err)
	}
	names := investigators()
	if s := os.Getenv("AGENTK_BENCH_PERSONAS"); s != "" {
		names = strings.Split(s, ",")
	}
	parallel := 6
	if s := os.Getenv("AGENTK_BENCH_PARALLEL"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			parallel = n
		}
	}
	var mu sync.Mutex
	var budget int64
	log := slog.New(budgetLog{&mu, &budget})
	type job struct {
		name string
		inc  *incident.Incident
	}
	tokens := map[string][]int{}
	errs := map[string]int{}
	jobs := make(chan job)
	var wg sync.WaitGroup
	started := time.Now()
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var res replay.Result
				var err error
				// A replay picks free loopback ports and binds them later; a
				// collision with a concurrent replay is retried, not scored.
				for try := 0; try < 3; try++ {
					res, err = replay.RunIncident(context.Background(), j.inc, replay.Options{Investigator: j.name, Logger: log, Timeout: 120 * time.Second})
					if err == nil || !strings.Contains(err.Error(), "address already in use") {
						break
					}
				}
				mu.Lock()
				if err != nil {
					errs[j.name]++
					b.Logf("%s %s: %v", j.name, j.inc.Meta.ID, err)
				} else {
					tokens[j.name] = append(tokens[j.name], res.TokensIn+res.TokensOut)
				}
				mu.Unlock()
			}
		}()
	}
	for _, name := range names {
		for _, inc := range incs {
			jobs <- job{name, inc}
		}
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(started)

	for _, name := range names {
		b.Run(strings.ReplaceAll(name, ":", "="), func(b *testing.B) {
			for range b.N {
			}
			t := slices.Clone(tokens[name])
			if len(t) == 0 {
				b.Fatalf("%s: no replay finished", name)
			}
			slices.Sort(t)
			sum := 0
			for _, n := range t {
				sum += n
			}
			b.ReportMetric(float64(t[len(t)/2]), "tokens-p50")
			b.ReportMetric(float64(t[len(t)-1]), "tokens-max")
			b.ReportMetric(float64(sum)/float64(len(t)), "tokens-mean")
			mu.Lock()
			b.ReportMetric(float64(budget), "budget-tokens")
			mu.Unlock()
			b.ReportMetric(float64(len(t)), "replays")
			b.ReportMetric(float64(errs[name]), "errors")
			b.ReportMetric(elapsed.Seconds(), "pool-s")
		})
	}
}
