package ingester

import (
	"context"
	"encoding/json"
	"fmt"
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

// BenchmarkStoreFloor measures the JetStream writes of a new incident alone,
// through the ingester's own adapters, with no HTTP, no decoding and no
// sealing (all done before the timer): the index key, then the record and
// the sealed alert sent together and awaited together. It is the floor under
// BenchmarkIngest's new-incident figures: what two dependent round trips and
// three stores cost, beside a raw publish of one sealed alert in the same run.
//
//	go test -run '^$' -bench StoreFloor -benchtime 2000x ./services/ingester
func BenchmarkStoreFloor(b *testing.B) {
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
