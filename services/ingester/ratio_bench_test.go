package ingester

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/topology"
	"agentk/services/ingester/internal/incidents"
	"agentk/services/ingester/internal/natsport"
	"agentk/services/ingester/webhook"
)

// ratioRound is how many alerts each part sends in one round of the 8
// senders' comparison before the next part takes its turn.
const ratioRound = 250

// BenchmarkFloorRatio measures a new incident through the ingester against
// its floor (BenchmarkFloor's two parts: the three JetStream writes alone
// and an HTTP exchange of the same body alone) in one run, over one
// embedded fabric and one running ingester, the parts interleaved so that
// a machine others load weighs on all of them alike:
//
//   - one_sender: each iteration files one new incident through the
//     ingester, makes one new incident's writes alone and one HTTP
//     exchange alone, and the work (below), in an order that rotates; p50-ratio is the
//     ingester's p50 over the sum of the two parts' p50s.
//   - 8_senders: rounds of ratioRound alerts from 8 concurrent senders,
//     each part in turn (the order rotating), CPU time summed per part;
//     cpu-ratio is the ingester's CPU an alert over the sum of the two
//     parts'.
//
// The issue-36 targets are p50-ratio ≤ 1.3 and cpu-ratio ≤ 1.5. Beside
// them, the work the ingester must do besides the floor's parts, alone and
// in the same rounds: decoding and checking the body (parse-p50-µs; before
// anything is written), encoding and sealing the alert (seal-p50-µs; the
// ingester does it while the index key's round trip is in flight), and
// their CPU with 8 senders (work-cpu-µs/op); p50-ratio-parse and
// cpu-ratio-work are the ingester over the floor with that work added.
//
//	go test -run '^$' -bench FloorRatio -benchtime 2000x ./services/ingester
func BenchmarkFloorRatio(b *testing.B) {
	f := embedded(b)
	r := start(b, f, map[string]string{"AGENTK_INGEST_MAX_INVESTIGATIONS": "1000000"}, nil)
	defer r.stop()
	ctx := context.Background()
	bucket, err := r.deps.Bus.KeyValue(ctx, topology.BucketIncidents)
	if err != nil {
		b.Fatal(err)
	}
	kv, err := natsport.NewKV(ctx, r.deps.Bus.JetStream(), bucket)
	if err != nil {
		b.Fatal(err)
	}
	pub := natsport.NewPublisher(r.deps.Bus, r.deps.Signer, time.Now)
	write := func(w floorWrites) error {
		if _, err := kv.CreateNewAsync(ctx, w.key, []byte(w.id))(); err != nil {
			return err
		}
		wrec := kv.CreateAsync(ctx, w.id, w.rec)
		_, pubErr := pub.Publish(ctx, w.alert, w.msgID)()
		_, recErr := wrec()
		if pubErr != nil {
			return pubErr
		}
		return recErr
	}
	nop := nopServer(b)
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	httpBody := stormBody("floor-http", 0, 1, t0)
	run := 100 // apart from newFloorWrites' runs of other benchmarks
	// parts are the ingester's new incident (0), the writes alone (1) and
	// the HTTP exchange alone (2) of alert i.
	type parts struct {
		bodies, own [][]byte // the ingester's bodies; the work's own
		ws          []floorWrites
	}
	prepare := func(b *testing.B, n int) parts {
		run++
		p := parts{bodies: make([][]byte, n), own: make([][]byte, n), ws: newFloorWrites(b, r, run, n, t0)}
		for i := range p.bodies {
			p.bodies[i] = stormBody(fmt.Sprintf("ratio-%d-%d", run, i), 0, 1, t0)
			p.own[i] = stormBody(fmt.Sprintf("work-%d-%d", run, i), 0, 1, t0)
		}
		return p
	}
	// work is what the ingester must do to an alert besides the floor's
	// parts, as it does it: decode and check the body (before anything is
	// written), then encode and seal the alert (while the index key's round
	// trip is in flight).
	parse := func(b *testing.B, body []byte) contracts.AlertV1 {
		as, err := webhook.Parse(body, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		return as[0]
	}
	seal := func(b *testing.B, a contracts.AlertV1) {
		if _, err := pub.Prepare(incidents.Alert{AlertV1: a}, incidents.MsgID(a)); err != nil {
			b.Fatal(err)
		}
	}
	do := func(b *testing.B, p parts, part, i int) {
		switch part {
		case 0:
			if code, out := post(b, r.url, p.bodies[i]); code != http.StatusOK {
				b.Errorf("ingester: status %d: %s", code, out)
			}
		case 1:
			if err := write(p.ws[i]); err != nil {
				b.Error(err)
			}
		case 3:
			seal(b, parse(b, p.own[i]))
		default:
			if code, out := post(b, nop, httpBody); code != http.StatusOK {
				b.Errorf("http exchange: status %d: %s", code, out)
			}
		}
	}

	b.Run("one_sender", func(b *testing.B) {
		p := prepare(b, b.N)
		var lat [5][]time.Duration
		b.ResetTimer()
		for i := range b.N {
			for k := range 4 {
				part := (i + k) % 4
				s := time.Now()
				if part == 3 { // the work, its two steps timed apart
					a := parse(b, p.own[i])
					lat[3] = append(lat[3], time.Since(s))
					s = time.Now()
					seal(b, a)
					lat[4] = append(lat[4], time.Since(s))
					continue
				}
				do(b, p, part, i)
				lat[part] = append(lat[part], time.Since(s))
			}
		}
		b.StopTimer()
		ing, wr, hx, pa, se := p50(lat[0]), p50(lat[1]), p50(lat[2]), p50(lat[3]), p50(lat[4])
		b.ReportMetric(ing, "ingest-p50-µs")
		b.ReportMetric(wr, "writes-p50-µs")
		b.ReportMetric(hx, "http-p50-µs")
		b.ReportMetric(pa, "parse-p50-µs")
		b.ReportMetric(se, "seal-p50-µs")
		b.ReportMetric(ing/(wr+hx), "p50-ratio")
		// Decoding must come before the first write: no design files an
		// alert in less than the floor and the decoding.
		b.ReportMetric(ing/(wr+hx+pa), "p50-ratio-parse")
	})

	b.Run("8_senders", func(b *testing.B) {
		p := prepare(b, b.N)
		var cpu [4]time.Duration
		b.ResetTimer()
		for round, lo := 0, 0; lo < b.N; round, lo = round+1, lo+ratioRound {
			idx := make([]int, 0, ratioRound)
			for i := lo; i < min(lo+ratioRound, b.N); i++ {
				idx = append(idx, i)
			}
			for k := range 4 {
				part := (round + k) % 4
				cpu0 := cpuTime()
				fanOut(idx, func(i int) { do(b, p, part, i) })
				cpu[part] += cpuTime() - cpu0
			}
		}
		b.StopTimer()
		per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
		ing, wr, hx, wk := per(cpu[0]), per(cpu[1]), per(cpu[2]), per(cpu[3])
		b.ReportMetric(ing, "ingest-cpu-µs/op")
		b.ReportMetric(wr, "writes-cpu-µs/op")
		b.ReportMetric(hx, "http-cpu-µs/op")
		b.ReportMetric(wk, "work-cpu-µs/op")
		b.ReportMetric(ing/(wr+hx), "cpu-ratio")
		// Decoding, encoding and sealing are the contract's: no design
		// files an alert for less CPU than the floor and that work.
		b.ReportMetric(ing/(wr+hx+wk), "cpu-ratio-work")
	})
}

// p50 is the median of lat in µs.
func p50(lat []time.Duration) float64 {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds()) / 1e3
}
