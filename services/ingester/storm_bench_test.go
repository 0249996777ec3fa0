package ingester

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/bus"
	"agentk/services/ingester/internal/httpport"
	"agentk/services/ingester/webhook"
)

// storm is the alert storm of the acceptance test: 10,000 alerts across 20
// services, 50 per webhook body, posted by 8 senders at once.
const (
	stormServices, stormPerService, stormPerBody, stormSenders = 20, 500, 50, 8
)

func stormBodies() [][]byte {
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var out [][]byte
	for first := 0; first < stormPerService; first += stormPerBody {
		for s := range stormServices {
			out = append(out, stormBody(fmt.Sprintf("svc-%02d", s), first, stormPerBody, t0))
		}
	}
	return out
}

// fanOut runs do over every item with stormSenders goroutines.
func fanOut[T any](items []T, do func(T)) {
	ch := make(chan T)
	var wg sync.WaitGroup
	for range stormSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range ch {
				do(it)
			}
		}()
	}
	for _, it := range items {
		ch <- it
	}
	close(ch)
	wg.Wait()
}

// BenchmarkStorm measures the storm drained through the ingester (every
// webhook answered: each alert filed durably, one incident per service) on a
// fresh fabric per op, beside raw JetStream publishes of the same 10,000
// alerts, sealed, by as many senders: the ceiling. It fails unless the storm
// made exactly 20 incidents and lost no alert.
//
//	go test -run '^$' -bench Storm -benchtime 3x ./services/ingester
func BenchmarkStorm(b *testing.B) {
	bodies := stormBodies()
	total := stormServices * stormPerService

	b.Run("webhook", func(b *testing.B) {
		var drain time.Duration
		for range b.N {
			b.StopTimer()
			f := embedded(b)
			r := start(b, f, map[string]string{"AGENTK_INGEST_MAX_INVESTIGATIONS": "5"}, nil)
			var filed, failed atomic.Int64
			b.StartTimer()
			s := time.Now()
			fanOut(bodies, func(body []byte) {
				code, out := post(b, r.url, body)
				if code != 200 {
					failed.Add(1)
					return
				}
				var resp httpport.Response
				if json.Unmarshal(out, &resp) == nil {
					filed.Add(int64(len(resp.Alerts)))
				}
			})
			drain += time.Since(s)
			b.StopTimer()
			records, firing := incidentKeys(b, f)
			r.stop()
			if failed.Load() > 0 || records != stormServices || firing != total || filed.Load() != int64(total) {
				b.Fatalf("storm: %d incidents (want %d), %d alerts firing and %d filed (want %d), %d bodies refused",
					records, stormServices, firing, filed.Load(), total, failed.Load())
			}
			b.ReportMetric(float64(records), "incidents")
			b.ReportMetric(float64(total-firing), "lost")
			b.StartTimer()
		}
		b.ReportMetric(float64(drain.Milliseconds())/float64(b.N), "drain-ms")
		b.ReportMetric(float64(total*b.N)/drain.Seconds(), "alerts/s")
	})

	b.Run("raw_jetstream_publish", func(b *testing.B) {
		var drain time.Duration
		for i := range b.N {
			b.StopTimer()
			f := embedded(b)
			r := start(b, f, nil, nil)
			var outs []bus.Out
			for _, body := range bodies {
				alerts, err := webhook.Parse(body, time.Now())
				if err != nil {
					b.Fatal(err)
				}
				for _, a := range alerts {
					env, err := r.deps.Signer.SealJSON(contracts.SubjectAlert, a, time.Now(), 0)
					if err != nil {
						b.Fatal(err)
					}
					outs = append(outs, bus.Out{Envelope: env, MsgID: fmt.Sprintf("bench.storm.%d.%d", i, len(outs))})
				}
			}
			var failed atomic.Int64
			b.StartTimer()
			s := time.Now()
			fanOut(outs, func(o bus.Out) {
				if err := r.deps.Bus.Publish(context.Background(), contracts.SubjectAlert, o, nil); err != nil {
					failed.Add(1)
				}
			})
			drain += time.Since(s)
			b.StopTimer()
			r.stop()
			if failed.Load() > 0 || len(outs) != total {
				b.Fatalf("raw publish: %d of %d failed", failed.Load(), len(outs))
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(drain.Milliseconds())/float64(b.N), "drain-ms")
		b.ReportMetric(float64(total*b.N)/drain.Seconds(), "alerts/s")
	})
}
