package ingester

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/bus"
	"agentk/platform/topology"
	"agentk/services/ingester/internal/incidents"
	"agentk/services/ingester/internal/natsport"
	"agentk/services/ingester/webhook"
)

// floorWrites are the JetStream writes of one new incident, made ready
// outside the timer: the index key, the record and the sealed alert.
type floorWrites struct {
	key, id string
	rec     []byte
	alert   incidents.Alert
	msgID   string
}

// newFloorWrites prepares n new incidents' writes as the ingester makes them.
func newFloorWrites(b *testing.B, r *running, run, n int, t0 time.Time) []floorWrites {
	pub := natsport.NewPublisher(r.deps.Bus, r.deps.Signer, time.Now)
	out := make([]floorWrites, n)
	for i := range out {
		alerts, err := webhook.Parse(stormBody(fmt.Sprintf("floor-%d-%d", run, i), 0, 1, t0), time.Now())
		if err != nil {
			b.Fatal(err)
		}
		a := alerts[0]
		rec, err := json.Marshal(incidents.Record{IncidentID: a.IncidentID, Service: a.Service, RuleID: a.RuleID,
			State: incidents.StateInvestigating, OpenedAt: a.ReceivedAt, ReleasedAt: a.ReceivedAt, Alert: a})
		if err != nil {
			b.Fatal(err)
		}
		sealed, err := pub.Prepare(incidents.Alert{AlertV1: a}, incidents.MsgID(a))
		if err != nil {
			b.Fatal(err)
		}
		out[i] = floorWrites{key: webhook.RuleKey(a.Service, a.RuleID), id: a.IncidentID, rec: rec, alert: sealed, msgID: incidents.MsgID(a)}
	}
	return out
}

// BenchmarkFloor measures, beside a raw publish of one sealed alert in the
// same run, the two parts of a new incident that no code of the ingester
// can make cheaper: its JetStream writes alone, through the ingester's own
// adapters, with no HTTP, no decoding and no sealing (all done before the
// timer): the index key, then the record and the sealed alert sent together
// and awaited together (two dependent round trips, three stores); and an
// HTTP exchange of the same webhook body, by the same client, with a handler
// that only reads the body and answers. They are the floor under
// BenchmarkIngest's new-incident figures. two_round_trips_groups_of_8 is
// the writes' floor were they committed in groups across 8 concurrent
// requests.
//
//	go test -run '^$' -bench Floor -benchtime 2000x ./services/ingester
func BenchmarkFloor(b *testing.B) {
	f := embedded(b)
	r := start(b, f, nil, nil)
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
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
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
	run := 0

	b.Run("two_round_trips", func(b *testing.B) {
		run++
		ws := newFloorWrites(b, r, run, b.N, t0)
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			s := time.Now()
			if err := write(ws[i]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(s))
		}
		b.StopTimer()
		reportLatency(b, lat)
	})

	b.Run("two_round_trips_8_senders", func(b *testing.B) {
		run++
		ws := newFloorWrites(b, r, run, b.N, t0)
		b.ResetTimer()
		s, cpu0 := time.Now(), cpuTime()
		fanOut(ws, func(w floorWrites) {
			if err := write(w); err != nil {
				b.Error(err)
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(s).Seconds(), "alerts/s")
		reportCPU(b, cpu0)
	})

	b.Run("two_round_trips_groups_of_8", func(b *testing.B) {
		run++
		ws := newFloorWrites(b, r, run, b.N, t0)
		b.ResetTimer()
		s, cpu0 := time.Now(), cpuTime()
		for i := 0; i < b.N; i += stormSenders {
			if err := writeGroup(ctx, kv, pub, ws[i:min(i+stormSenders, b.N)]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(s).Seconds(), "alerts/s")
		reportCPU(b, cpu0)
	})

	b.Run("http_exchange", func(b *testing.B) {
		url := nopServer(b)
		body := stormBody("floor-http", 0, 1, t0)
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for range b.N {
			s := time.Now()
			if code, out := post(b, url, body); code != http.StatusOK {
				b.Fatalf("status %d: %s", code, out)
			}
			lat = append(lat, time.Since(s))
		}
		b.StopTimer()
		reportLatency(b, lat)
	})

	b.Run("http_exchange_8_senders", func(b *testing.B) {
		url := nopServer(b)
		body := stormBody("floor-http8", 0, 1, t0)
		b.ResetTimer()
		s, cpu0 := time.Now(), cpuTime()
		fanOut(make([]struct{}, b.N), func(struct{}) {
			if code, out := post(b, url, body); code != http.StatusOK {
				b.Errorf("status %d: %s", code, out)
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(s).Seconds(), "alerts/s")
		reportCPU(b, cpu0)
	})

	b.Run("raw_jetstream_publish_8_senders", func(b *testing.B) {
		run++
		env := sealed(b, r, fmt.Sprintf("floor-raw8-%d", run), t0)
		outs := make([]bus.Out, b.N)
		for i := range outs {
			outs[i] = bus.Out{Envelope: env, MsgID: fmt.Sprintf("bench.floor8.%d.%d", run, i)}
		}
		b.ResetTimer()
		s, cpu0 := time.Now(), cpuTime()
		fanOut(outs, func(o bus.Out) {
			if err := r.deps.Bus.Publish(ctx, contracts.SubjectAlert, o, nil); err != nil {
				b.Error(err)
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(s).Seconds(), "alerts/s")
		reportCPU(b, cpu0)
	})

	b.Run("raw_jetstream_publish", func(b *testing.B) {
		run++
		env := sealed(b, r, fmt.Sprintf("floor-raw-%d", run), t0)
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			s := time.Now()
			if err := r.deps.Bus.Publish(ctx, contracts.SubjectAlert, bus.Out{Envelope: env, MsgID: fmt.Sprintf("bench.floor.%d.%d", run, i)}, nil); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(s))
		}
		b.StopTimer()
		reportLatency(b, lat)
	})
}

// writeGroup makes the writes of a group of new incidents from one
// goroutine, as a group commit across concurrent requests would: every
// index key sent, then awaited; then every record and alert sent, then
// awaited. It is the least such a design could cost in JetStream writes.
func writeGroup(ctx context.Context, kv *natsport.KV, pub *natsport.Publisher, ws []floorWrites) error {
	keys := make([]incidents.Pending[uint64], len(ws))
	for i, w := range ws {
		keys[i] = kv.CreateNewAsync(ctx, w.key, []byte(w.id))
	}
	for _, k := range keys {
		if _, err := k(); err != nil {
			return err
		}
	}
	recs := make([]incidents.Pending[uint64], len(ws))
	pubs := make([]incidents.Pending[bool], len(ws))
	for i, w := range ws {
		recs[i] = kv.CreateAsync(ctx, w.id, w.rec)
		pubs[i] = pub.Publish(ctx, w.alert, w.msgID)
	}
	for i := range ws {
		if _, err := pubs[i](); err != nil {
			return err
		}
		if _, err := recs[i](); err != nil {
			return err
		}
	}
	return nil
}

// nopServer serves, until the benchmark ends, a handler that reads the body
// and answers as the webhook does for one new incident, with the ingester's
// server settings; it returns the webhook's URL.
func nopServer(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	answer := []byte(`{"received":1,"alerts":[{"incident_id":"inc-floor-http-0123456789abcdef","outcome":"opened","service":"floor-http"}]}` + "\n")
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(answer)
		})}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}
