// Command benchdoc turns the text output of `go test -bench` (as
// scripts/bench.sh collects it) into docs/bench/latest.md and latest.json:
// every figure beside the baseline measured in the same run. A figure whose
// benchmark did not run is reported as not run, never filled in.
//
//	go run ./bench/cmd/benchdoc -raw bench.txt -md latest.md -json latest.json -elapsed 312
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Bench is one benchmark's results: each metric's median over its runs.
type Bench struct {
	Name    string             `json:"name"`
	Package string             `json:"package"`
	Runs    int                `json:"runs"`
	Metrics map[string]float64 `json:"metrics"`
	samples map[string][]float64
}

// Row is one line of the table.
type Row struct {
	Figure   string  `json:"figure"`
	Measured string  `json:"measured"`
	Baseline string  `json:"baseline"`
	Ratio    float64 `json:"ratio,omitempty"`
	RatioOf  string  `json:"ratio_of,omitempty"`
	Note     string  `json:"note,omitempty"`
}

// Machine is where the run happened.
type Machine struct {
	CPU   string `json:"cpu"`
	Cores int    `json:"cores"`
	Go    string `json:"go"`
	OS    string `json:"os"`
}

// Doc is latest.json.
type Doc struct {
	Generated  time.Time         `json:"generated"`
	ElapsedS   float64           `json:"elapsed_s"`
	Machine    Machine           `json:"machine"`
	Rows       []Row             `json:"rows"`
	Benchmarks map[string]*Bench `json:"benchmarks"`
	Skipped    []string          `json:"skipped,omitempty"`
}

var line = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.+)$`)

func parse(r io.Reader) (map[string]*Bench, string, []string) {
	out := map[string]*Bench{}
	cpu, pkg := "", ""
	var skipped []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(t, "cpu: "):
			cpu = strings.TrimPrefix(t, "cpu: ")
		case strings.HasPrefix(t, "pkg: "):
			pkg = strings.TrimPrefix(t, "pkg: ")
		case strings.Contains(t, "--- SKIP") || strings.HasPrefix(t, "SKIP:"):
			skipped = append(skipped, t)
		}
		m := line.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		f := strings.Fields(m[3])
		if len(f) < 2 {
			continue
		}
		b := out[m[1]]
		if b == nil {
			b = &Bench{Name: m[1], Package: pkg, Metrics: map[string]float64{}, samples: map[string][]float64{}}
			out[m[1]] = b
		}
		b.Runs++
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			b.samples[f[i+1]] = append(b.samples[f[i+1]], v)
		}
	}
	for _, b := range out {
		for unit, vs := range b.samples {
			slices.Sort(vs)
			b.Metrics[unit] = vs[len(vs)/2]
		}
	}
	return out, cpu, skipped
}

func cpuModel(fallback string) string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return fallback
}

// table builds the rows from whatever ran.
func table(bs map[string]*Bench) []Row {
	get := func(name, unit string) (float64, bool) {
		b, ok := bs[name]
		if !ok {
			return 0, false
		}
		v, ok := b.Metrics[unit]
		return v, ok
	}
	var rows []Row
	rows = append(rows, ingestRows(get, num)...)
	rows = append(rows, floorRows(get, num)...)
	rows = append(rows, floorRatioRows(get, num)...)
	rows = append(rows, stormRow(get, num))
	rows = append(rows, pipelineRows(get, num)...)
	rows = append(rows, scaleOutRow(get, num))
	rows = append(rows, gateRow(get, num), compactionRow(get, num))
	rows = append(rows, evalCPURow(get, num), replayRow(get, num))
	rows = append(rows, tokenRows(bs, get, num)...)
	return append(rows, rollbackRows(get, num)...)
}

// evalCPURow is issue 36's figure: a whole `agentk eval` process's CPU per
// replay, this tree's beside the commit before issue 36's work.
func evalCPURow(get func(name, unit string) (float64, bool), num func(float64) string) Row {
	const fig = "Replay: CPU per incident (a whole `agentk eval --json` process over the corpus, corpus loading included, two replays at a time)"
	h, ok1 := get("BenchmarkEvalCPU", "head-cpu-ms/replay")
	bs, ok2 := get("BenchmarkEvalCPU", "base-cpu-ms/replay")
	if !ok1 || !ok2 {
		return missing(fig, "BenchmarkEvalCPU did not run (make bench builds both binaries)")
	}
	n, _ := get("BenchmarkEvalCPU", "head-replays")
	he, _ := get("BenchmarkEvalCPU", "head-errors")
	be, _ := get("BenchmarkEvalCPU", "base-errors")
	return Row{Figure: fig,
		Measured: fmt.Sprintf("this tree's agentk: %s ms of CPU a replay, %s replays, %s errors", num(h), num(n), num(he)),
		Baseline: fmt.Sprintf("issue 36's \"today\", agentk at a18468e (AGENTK_BENCH_EVAL_BASE_REV) on the same corpus: %s ms, %s errors", num(bs), num(be)),
		Ratio:    h / bs, RatioOf: "CPU a replay, this tree ÷ before issue 36 (target ≤ 0.333)"}
}

// replayRow is the CPU one replay of the corpus costs as an eval runs it,
// beside each replay on its own as every replay ran before issue 36.
func replayRow(get func(name, unit string) (float64, bool), num func(float64) string) Row {
	const fig = "Replay: CPU per incident (one replay of the corpus through all seven services, two at a time)"
	e, ok1 := get("BenchmarkReplayCPU/eval", "cpu-ms/replay")
	a, ok2 := get("BenchmarkReplayCPU/alone", "cpu-ms/replay")
	if !ok1 || !ok2 {
		return missing(fig, "BenchmarkReplayCPU did not run")
	}
	n, _ := get("BenchmarkReplayCPU/eval", "replays")
	errs, _ := get("BenchmarkReplayCPU/eval", "errors")
	aerrs, _ := get("BenchmarkReplayCPU/alone", "errors")
	return Row{Figure: fig,
		Measured: fmt.Sprintf("%s ms of CPU a replay as `agentk eval` runs them (telemetry indexed once per incident, answers kept, NATS store in /dev/shm), %s replays, %s errors", num(e), num(n), num(errs)),
		Baseline: fmt.Sprintf("each replay alone, as before issue 36 (its own telemetry, its NATS store on disk): %s ms, %s errors", num(a), num(aerrs)),
		Ratio:    e / a, RatioOf: "CPU a replay, eval ÷ alone"}
}

// num prints a measured value: integers whole, others with fewer decimals
// the larger they are.
func num(v float64) string {
	switch {
	case v == float64(int64(v)):
		return strconv.FormatInt(int64(v), 10)
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// missing is the row of a figure whose benchmark did not run.
func missing(fig, why string) Row {
	return Row{Figure: fig, Measured: "not run", Baseline: "not run", Note: why}
}

// stormRow is the 10,000-alert storm beside raw publishes of the same alerts.
func stormRow(get func(name, unit string) (float64, bool), num func(float64) string) Row {
	d, ok := get("BenchmarkStorm/webhook", "drain-ms")
	if !ok {
		return missing("Alert storm", "BenchmarkStorm did not run")
	}
	rd, ok2 := get("BenchmarkStorm/raw_jetstream_publish", "drain-ms")
	inc, _ := get("BenchmarkStorm/webhook", "incidents")
	lost, _ := get("BenchmarkStorm/webhook", "lost")
	aps, _ := get("BenchmarkStorm/webhook", "alerts/s")
	raps, _ := get("BenchmarkStorm/raw_jetstream_publish", "alerts/s")
	r := Row{Figure: "Alert storm: 10,000 alerts across 20 services, 8 senders",
		Measured: fmt.Sprintf("drained in %s ms (%s alerts/s); %s incidents; lost %s", num(d), num(aps), num(inc), num(lost)),
		Baseline: "not run"}
	if ok2 {
		r.Baseline = fmt.Sprintf("raw JetStream publish of the same 10,000 alerts: %s ms (%s alerts/s)", num(rd), num(raps))
		r.Ratio, r.RatioOf = d/rd, "drain time, ingester ÷ raw publish"
	}
	return r
}

// gateRow is one gate decision beside sealing it.
func gateRow(get func(name, unit string) (float64, bool), num func(float64) string) Row {
	ns, ok := get("BenchmarkEvaluate", "ns/op")
	if !ok {
		return missing("Gate", "BenchmarkEvaluate did not run")
	}
	al, _ := get("BenchmarkEvaluate", "allocs/op")
	by, _ := get("BenchmarkEvaluate", "B/op")
	r := Row{Figure: "Gate: one decision (six checks)", Measured: fmt.Sprintf("%s ns/op, %s allocs/op, %s B/op", num(ns), num(al), num(by)), Baseline: "not run"}
	if sn, ok := get("BenchmarkSealDecision", "ns/op"); ok {
		sa, _ := get("BenchmarkSealDecision", "allocs/op")
		r.Baseline = fmt.Sprintf("sealing that decision (JSON + ed25519): %s ns/op, %s allocs/op", num(sn), num(sa))
		r.Ratio, r.RatioOf = ns/sn, "ns/op, evaluate ÷ seal"
	}
	return r
}

// compactionRow is what the model sees beside the raw SigNoz responses.
func compactionRow(get func(name, unit string) (float64, bool), num func(float64) string) Row {
	raw, ok := get("BenchmarkCompactionCorpus", "raw-bytes")
	if !ok {
		return missing("Evidence compaction", "BenchmarkCompactionCorpus did not run")
	}
	mb, _ := get("BenchmarkCompactionCorpus", "model-bytes")
	rt, _ := get("BenchmarkCompactionCorpus", "raw-tokens")
	mt, _ := get("BenchmarkCompactionCorpus", "model-tokens")
	n, _ := get("BenchmarkCompactionCorpus", "incidents")
	c, _ := get("BenchmarkCompactionCorpus", "tool-calls")
	return Row{Figure: fmt.Sprintf("Evidence compaction: %s tool calls over %s incidents", num(c), num(n)),
		Measured: fmt.Sprintf("what the model sees: %s bytes, ~%s tokens", num(mb), num(mt)),
		Baseline: fmt.Sprintf("raw SigNoz query_range responses: %s bytes, ~%s tokens", num(raw), num(rt)),
		Ratio:    mb / raw, RatioOf: "bytes, model ÷ raw"}
}

// tokenRows are the tokens per investigation of each investigator beside
// its budget.
func tokenRows(bs map[string]*Bench, get func(name, unit string) (float64, bool), num func(float64) string) []Row {
	var tok []string
	for name := range bs {
		if strings.HasPrefix(name, "BenchmarkTokens/") {
			tok = append(tok, name)
		}
	}
	sort.Strings(tok)
	var rows []Row
	for _, name := range tok {
		inv := strings.ReplaceAll(strings.TrimPrefix(name, "BenchmarkTokens/"), "=", ":")
		p50, _ := get(name, "tokens-p50")
		mx, _ := get(name, "tokens-max")
		budget, _ := get(name, "budget-tokens")
		n, _ := get(name, "replays")
		errs, _ := get(name, "errors")
		r := Row{Figure: "Tokens per investigation: " + inv,
			Measured: fmt.Sprintf("p50 %s, max %s over %s replays (%s errors)", num(p50), num(mx), num(n), num(errs)),
			Baseline: fmt.Sprintf("budget %s tokens (as the investigator logged it)", num(budget))}
		if budget > 0 {
			r.Ratio, r.RatioOf = mx/budget, "max ÷ budget"
		}
		rows = append(rows, r)
	}
	if len(tok) == 0 {
		rows = append(rows, missing("Tokens per investigation", "BenchmarkTokens did not run"))
	}
	return rows
}

// rollbackRows are BenchmarkRollback's two figures, each beside its own
// baseline, from interleaved pairs (deployer, bare compose), each metric the
// median of the pairs: approval → the container on the target image and
// healthy, beside bare compose until healthy (and the bare command alone),
// its ratio the median of the pairs' ratios; and the recovery verdict, with
// its stabilisation window stated, beside bare compose until healthy plus
// that window.
func rollbackRows(get func(name, unit string) (float64, bool), num func(float64) string) []Row {
	const pair = "BenchmarkRollback/paired"
	healthy, ok := get(pair, "approval-to-healthy-ms")
	if !ok {
		return []Row{{Figure: "Rollback on the real Docker engine", Measured: "not run", Baseline: "not run",
			Note: "BenchmarkRollback did not run (needs AGENTK_REQUIRE_DOCKER=1 and an engine)"}}
	}
	act, _ := get(pair, "action-ms")
	ver, _ := get(pair, "verify-ms")
	verdict, _ := get(pair, "recovery-verdict-ms")
	stab, _ := get(pair, "stabilise-ms")
	up, _ := get(pair, "compose-up-ms")
	toHealthy, _ := get(pair, "compose-to-healthy-ms")
	x, _ := get(pair, "x-bare")
	first := Row{Figure: "Rollback on the real Docker engine: approval → container on the target image and healthy (median of interleaved pairs)",
		Measured: fmt.Sprintf("%s ms (compose with the pin %s ms, health by Docker events %s ms)", num(healthy), num(act), num(ver)),
		Baseline: fmt.Sprintf("bare `compose up -d --force-recreate shop-api` until Docker says healthy: %s ms (the command alone %s ms)", num(toHealthy), num(up)),
		Ratio:    x, RatioOf: "median of the pairs' deployer ÷ bare compose until healthy"}
	second := Row{Figure: fmt.Sprintf("Rollback on the real Docker engine: approval → recovery verdict (stabilisation window %s ms, a setting; then a 20-request probe)", num(stab)),
		Measured: fmt.Sprintf("%s ms", num(verdict)),
		Baseline: fmt.Sprintf("bare compose until healthy + the stabilisation window: %s ms", num(toHealthy+stab)),
		Ratio:    verdict / (toHealthy + stab), RatioOf: "deployer ÷ (bare compose until healthy + window)"}
	return []Row{first, second}
}

// handNotes points at docs/bench/notes.md: measurements taken by hand since
// a run (other days, other loads) are kept there, so that a new run does not
// erase them with this file.
const handNotes = "Measured by hand since that run, beside these rows (other days, other loads, and what is left of each target): [notes.md](notes.md). `make bench` rewrites this file and leaves notes.md alone."

func main() {
	rawPath := flag.String("raw", "", "go test -bench text output")
	mdPath := flag.String("md", "docs/bench/latest.md", "markdown out")
	jsonPath := flag.String("json", "docs/bench/latest.json", "JSON out")
	elapsed := flag.Float64("elapsed", 0, "seconds the whole run took")
	goVersion := flag.String("go", runtime.Version(), "go version of the run")
	flag.Parse()
	f, err := os.Open(*rawPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bs, cpu, skipped := parse(f)
	_ = f.Close() // read only
	doc := Doc{Generated: time.Now().UTC(), ElapsedS: *elapsed, Benchmarks: bs, Skipped: skipped,
		Machine: Machine{CPU: cpuModel(cpu), Cores: runtime.NumCPU(), Go: *goVersion, OS: runtime.GOOS + "/" + runtime.GOARCH}}
	doc.Rows = table(bs)

	var md strings.Builder
	fmt.Fprintf(&md, "# Benchmarks\n\nGenerated by `make bench` (scripts/bench.sh) on %s; do not edit. Every figure sits beside a baseline measured in the same run on the same machine.\n\n",
		doc.Generated.Format(time.RFC3339))
	fmt.Fprintf(&md, "Machine: %s, %d cores, %s, %s. Whole run: %.0f s.\n\n", doc.Machine.CPU, doc.Machine.Cores, doc.Machine.Go, doc.Machine.OS, doc.ElapsedS)
	fmt.Fprintln(&md, "| figure | measured | baseline (same run) | ratio |")
	fmt.Fprintln(&md, "|---|---|---|---|")
	for _, r := range doc.Rows {
		ratio := "—"
		if r.RatioOf != "" {
			ratio = fmt.Sprintf("%.3g× (%s)", r.Ratio, r.RatioOf)
		}
		if r.Note != "" {
			ratio = r.Note
		}
		fmt.Fprintf(&md, "| %s | %s | %s | %s |\n", r.Figure, r.Measured, r.Baseline, ratio)
	}
	if len(skipped) > 0 {
		fmt.Fprintln(&md, "\nSkipped:")
		for _, s := range skipped {
			fmt.Fprintf(&md, "- `%s`\n", s)
		}
	}
	// Figures measured by hand live in notes.md, which this run never rewrites.
	fmt.Fprintln(&md, "\n"+handNotes)
	fmt.Fprintln(&md, "\nRaw `go test -bench` output (benchstat-readable) is in `latest.txt` beside this file; every benchmark's medians are in `latest.json`.")
	if err := os.WriteFile(*mdPath, []byte(md.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	js, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(*jsonPath, append(js, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(md.String())
}

// ingestRows are the ingest figures: one sender's latency beside a raw
// publish, and 8 senders' throughput beside 8 raw publishers.
func ingestRows(get func(name, unit string) (float64, bool), num func(float64) string) []Row {
	var rows []Row
	for _, path := range []struct{ sub, fig string }{
		{"webhook_new_incident", "Ingest: webhook → JetStream-acked new incident"},
		{"webhook_attach", "Ingest: webhook → alert attached to an open incident (storm path)"},
	} {
		w, raw := "BenchmarkIngest/"+path.sub, "BenchmarkIngest/raw_jetstream_publish"
		wn, ok1 := get(w, "ns/op")
		rn, ok2 := get(raw, "ns/op")
		if !ok1 || !ok2 {
			rows = append(rows, Row{Figure: path.fig, Measured: "not run", Baseline: "not run", Note: "BenchmarkIngest did not run"})
			continue
		}
		wp50, _ := get(w, "p50-µs")
		wp99, _ := get(w, "p99-µs")
		rp50, _ := get(raw, "p50-µs")
		rp99, _ := get(raw, "p99-µs")
		rows = append(rows, Row{Figure: path.fig,
			Measured: fmt.Sprintf("%s alerts/s, p50 %s µs, p99 %s µs", num(1e9/wn), num(wp50), num(wp99)),
			Baseline: fmt.Sprintf("raw JetStream publish of the same sealed alert: %s alerts/s, p50 %s µs, p99 %s µs", num(1e9/rn), num(rp50), num(rp99)),
			Ratio:    wp50 / rp50, RatioOf: "p50 latency, ingester ÷ raw publish"})
	}
	fig := "Ingest: webhook → JetStream-acked new incident, 8 concurrent senders"
	w, ok1 := get("BenchmarkIngest/webhook_new_incident_8_senders", "alerts/s")
	raw, ok2 := get("BenchmarkIngest/raw_jetstream_publish_8_senders", "alerts/s")
	if !ok1 || !ok2 {
		return append(rows, Row{Figure: fig, Measured: "not run", Baseline: "not run", Note: "BenchmarkIngest did not run"})
	}
	row := Row{Figure: fig, Measured: fmt.Sprintf("%s alerts/s", num(w)),
		Baseline: fmt.Sprintf("raw JetStream publish of the same sealed alert by 8 publishers: %s alerts/s", num(raw)),
		Ratio:    w / raw, RatioOf: "throughput, ingester ÷ raw publish"}
	// CPU per alert (sender, service and embedded server together) holds
	// when other work loads the machine and wall time does not.
	wc, ok1 := get("BenchmarkIngest/webhook_new_incident_8_senders", "cpu-µs/op")
	rc, ok2 := get("BenchmarkIngest/raw_jetstream_publish_8_senders", "cpu-µs/op")
	if ok1 && ok2 {
		row.Measured += fmt.Sprintf(", %s µs of CPU an alert (%s× a raw publish's)", num(wc), num(wc/rc))
		row.Baseline += fmt.Sprintf(", %s µs of CPU a publish", num(rc))
	}
	return append(rows, row)
}

// floorRows are BenchmarkFloor's figures, the floor under the new-incident
// ingest figures: the JetStream writes of a new incident alone (and an HTTP
// exchange of the same body alone), each beside a raw publish of the same
// benchmark.
func floorRows(get func(name, unit string) (float64, bool), num func(float64) string) []Row {
	const b = "BenchmarkFloor/"
	one := "Ingest floor, one sender: a new incident's JetStream writes alone (two dependent round trips, three stores; no HTTP, decoding or sealing)"
	eight := "Ingest floor, 8 concurrent senders: a new incident's JetStream writes alone"
	wp50, ok1 := get(b+"two_round_trips", "p50-µs")
	rp50, ok2 := get(b+"raw_jetstream_publish", "p50-µs")
	wc, ok3 := get(b+"two_round_trips_8_senders", "cpu-µs/op")
	rc, ok4 := get(b+"raw_jetstream_publish_8_senders", "cpu-µs/op")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return []Row{missing(one, "BenchmarkFloor did not run"), missing(eight, "BenchmarkFloor did not run")}
	}
	hp50, _ := get(b+"http_exchange", "p50-µs")
	hc, _ := get(b+"http_exchange_8_senders", "cpu-µs/op")
	gc, _ := get(b+"two_round_trips_groups_of_8", "cpu-µs/op")
	w, _ := get(b+"two_round_trips_8_senders", "alerts/s")
	raw, _ := get(b+"raw_jetstream_publish_8_senders", "alerts/s")
	return []Row{
		{Figure: one, Measured: fmt.Sprintf("p50 %s µs; an HTTP exchange of the same body alone (do-nothing handler): p50 %s µs", num(wp50), num(hp50)),
			Baseline: fmt.Sprintf("raw JetStream publish of the same sealed alert: p50 %s µs", num(rp50)),
			Ratio:    wp50 / rp50, RatioOf: "p50 latency, writes alone ÷ raw publish"},
		{Figure: eight, Measured: fmt.Sprintf("%s alerts/s, %s µs of CPU an alert (%s µs in groups of 8 from one goroutine); an HTTP exchange alone: %s µs of CPU", num(w), num(wc), num(gc), num(hc)),
			Baseline: fmt.Sprintf("raw JetStream publish by 8 publishers: %s alerts/s, %s µs of CPU a publish", num(raw), num(rc)),
			Ratio:    wc / rc, RatioOf: "CPU an alert, writes alone ÷ raw publish"},
	}
}

// floorRatioRows are BenchmarkFloorRatio's figures: a new incident through
// the ingester against its floor (the writes alone and an HTTP exchange
// alone), interleaved in one run, as issue 36 sets its targets (p50 ≤ 1.3×
// the floor, 8 senders' CPU an alert ≤ 1.5× the floor's), beside the work
// the ingester must do besides the floor's parts.
func floorRatioRows(get func(name, unit string) (float64, bool), num func(float64) string) []Row {
	const b = "BenchmarkFloorRatio/"
	one := "Ingest against its floor, one sender, interleaved in one run: new incident's p50 ÷ (writes alone + HTTP alone); target ≤ 1.3"
	eight := "Ingest against its floor, 8 concurrent senders, interleaved in one run: CPU an alert ÷ (writes alone + HTTP alone); target ≤ 1.5"
	ratio, ok1 := get(b+"one_sender", "p50-ratio")
	cratio, ok2 := get(b+"8_senders", "cpu-ratio")
	if !ok1 || !ok2 {
		return []Row{missing(one, "BenchmarkFloorRatio did not run"), missing(eight, "BenchmarkFloorRatio did not run")}
	}
	m := func(name, unit string) string { v, _ := get(b+name, unit); return num(v) }
	rp, _ := get(b+"one_sender", "p50-ratio-parse")
	rc, _ := get(b+"8_senders", "cpu-ratio-work")
	return []Row{
		{Figure: one,
			Measured: fmt.Sprintf("ingester p50 %s µs; the work it must do besides: decoding the body %s µs (before any write), encoding and sealing the alert %s µs (while the first round trip is in flight)",
				m("one_sender", "ingest-p50-µs"), m("one_sender", "parse-p50-µs"), m("one_sender", "seal-p50-µs")),
			Baseline: fmt.Sprintf("writes alone p50 %s µs + HTTP exchange alone p50 %s µs; with decoding added, the ingester is %s× that",
				m("one_sender", "writes-p50-µs"), m("one_sender", "http-p50-µs"), num(rp)),
			Ratio: ratio, RatioOf: "p50, ingester ÷ (writes alone + HTTP alone)"},
		{Figure: eight,
			Measured: fmt.Sprintf("ingester %s µs of CPU an alert; the work it must do besides (decoding, encoding, sealing): %s µs",
				m("8_senders", "ingest-cpu-µs/op"), m("8_senders", "work-cpu-µs/op")),
			Baseline: fmt.Sprintf("writes alone %s µs + HTTP exchange alone %s µs of CPU; with that work added, the ingester is %s× that",
				m("8_senders", "writes-cpu-µs/op"), m("8_senders", "http-cpu-µs/op"), num(rc)),
			Ratio: cratio, RatioOf: "CPU an alert, ingester ÷ (writes alone + HTTP alone)"},
	}
}
