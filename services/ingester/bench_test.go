package ingester

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/services/ingester/webhook"
)

// reportLatency adds p50 and p99 of the per-operation latencies.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// cpuTime is the CPU time this process has used, user and system: the test
// sender, the ingester and the embedded NATS server together. What an alert
// costs in CPU holds on a machine others load, where wall time is noise.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU time per operation since cpu0.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// sealed is the sealed alert of a one-alert body for svc.
func sealed(b *testing.B, r *running, svc string, t0 time.Time) envelope.Envelope {
	alerts, err := webhook.Parse(stormBody(svc, 0, 1, t0), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	env, err := r.deps.Signer.SealJSON(contracts.SubjectAlert, alerts[0], time.Now(), 0)
	if err != nil {
		b.Fatal(err)
	}
	return env
}

// BenchmarkIngest measures, in one run over one embedded fabric, a webhook
// delivery that opens a JetStream-acked incident, one that attaches to an
// open incident (the storm path), and a raw JetStream publish of the same
// sealed alert: the floor the ingester is compared with; then new incidents
// and raw publishes from 8 concurrent senders (throughput).
//
//	go test -run '^$' -bench Ingest -benchtime 2000x ./services/ingester
func BenchmarkIngest(b *testing.B) {
	f := embedded(b)
	r := start(b, f, map[string]string{"AGENTK_INGEST_MAX_INVESTIGATIONS": "1000000"}, nil)
	defer r.stop()
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	run := 0

	b.Run("webhook_new_incident", func(b *testing.B) {
		run++
		bodies := make([][]byte, b.N)
		for i := range bodies {
			bodies[i] = stormBody(fmt.Sprintf("new-%d-%d", run, i), 0, 1, t0)
		}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			s := time.Now()
			if code, body := post(b, r.url, bodies[i]); code != 200 {
				b.Fatalf("status %d: %s", code, body)
			}
			lat = append(lat, time.Since(s))
		}
		b.StopTimer()
		reportLatency(b, lat)
	})

	b.Run("webhook_attach", func(b *testing.B) {
		run++
		svc := fmt.Sprintf("storm-%d", run)
		if code, body := post(b, r.url, stormBody(svc, 0, 1, t0)); code != 200 {
			b.Fatalf("status %d: %s", code, body)
		}
		bodies := make([][]byte, b.N)
		for i := range bodies {
			bodies[i] = stormBody(svc, i+1, 1, t0)
		}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			s := time.Now()
			if code, body := post(b, r.url, bodies[i]); code != 200 {
				b.Fatalf("status %d: %s", code, body)
			}
			lat = append(lat, time.Since(s))
		}
		b.StopTimer()
		reportLatency(b, lat)
	})

	b.Run("webhook_new_incident_8_senders", func(b *testing.B) {
		run++
		bodies := make([][]byte, b.N)
		for i := range bodies {
			bodies[i] = stormBody(fmt.Sprintf("new8-%d-%d", run, i), 0, 1, t0)
		}
		b.ResetTimer()
		s, cpu0 := time.Now(), cpuTime()
		fanOut(bodies, func(body []byte) {
			if code, out := post(b, r.url, body); code != 200 {
				b.Errorf("status %d: %s", code, out)
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(s).Seconds(), "alerts/s")
		reportCPU(b, cpu0)
	})

	b.Run("raw_jetstream_publish_8_senders", func(b *testing.B) {
		run++
		env := sealed(b, r, fmt.Sprintf("raw8-%d", run), t0)
		outs := make([]bus.Out, b.N)
		for i := range outs {
			outs[i] = bus.Out{Envelope: env, MsgID: fmt.Sprintf("bench.raw8.%d.%d", run, i)}
		}
		b.ResetTimer()
		s, cpu0 := time.Now(), cpuTime()
		fanOut(outs, func(o bus.Out) {
			if err := r.deps.Bus.Publish(context.Background(), contracts.SubjectAlert, o, nil); err != nil {
				b.Error(err)
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(s).Seconds(), "alerts/s")
		reportCPU(b, cpu0)
	})

	b.Run("raw_jetstream_publish", func(b *testing.B) {
		run++
		ctx := context.Background()
		env := sealed(b, r, fmt.Sprintf("raw-%d", run), t0)
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			s := time.Now()
			out := bus.Out{Envelope: env, MsgID: fmt.Sprintf("bench.raw.%d.%d", run, i)}
			if err := r.deps.Bus.Publish(ctx, contracts.SubjectAlert, out, nil); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(s))
		}
		b.StopTimer()
		reportLatency(b, lat)
	})
}
