package incidents_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/internal/incidents"
)

// rtt is the round trip injected on every KV call and publication.
const rtt = time.Millisecond

// slowKV is memKV behind a network of one rtt per call.
type slowKV struct{ *memKV }

func (s slowKV) Get(ctx context.Context, key string) (incidents.Entry, error) {
	time.Sleep(rtt)
	return s.memKV.Get(ctx, key)
}

func (s slowKV) Create(ctx context.Context, key string, v []byte) (uint64, error) {
	time.Sleep(rtt)
	return s.memKV.Create(ctx, key, v)
}

// CreateAsync's round trip overlaps whatever is sent before it is awaited.
func (s slowKV) CreateAsync(ctx context.Context, key string, v []byte) incidents.Pending[uint64] {
	due := time.Now().Add(rtt)
	rev, err := s.memKV.Create(ctx, key, v)
	return func() (uint64, error) {
		time.Sleep(time.Until(due))
		return rev, err
	}
}

// CreateNewAsync's round trip overlaps whatever is sent before it is awaited.
func (s slowKV) CreateNewAsync(ctx context.Context, key string, v []byte) incidents.Pending[uint64] {
	due := time.Now().Add(rtt)
	wait := s.memKV.CreateNewAsync(ctx, key, v)
	return func() (uint64, error) {
		time.Sleep(time.Until(due))
		return wait()
	}
}

// Recreate costs two: the key's last message is read, then written over.
func (s slowKV) Recreate(ctx context.Context, key string, v []byte) (uint64, error) {
	time.Sleep(2 * rtt)
	return s.memKV.Recreate(ctx, key, v)
}

func (s slowKV) Update(ctx context.Context, key string, v []byte, rev uint64) (uint64, error) {
	time.Sleep(rtt)
	return s.memKV.Update(ctx, key, v, rev)
}

func (s slowKV) Delete(ctx context.Context, key string) error {
	time.Sleep(rtt)
	return s.memKV.Delete(ctx, key)
}

func (s slowKV) Keys(ctx context.Context, filter string) ([]string, error) {
	time.Sleep(rtt)
	return s.memKV.Keys(ctx, filter)
}

// slowPub is pub behind the same network.
type slowPub struct{ *pub }

func (s slowPub) Publish(ctx context.Context, a incidents.Alert, id string) incidents.Pending[bool] {
	due := time.Now().Add(rtt)
	wait := s.pub.Publish(ctx, a, id)
	return func() (bool, error) {
		time.Sleep(time.Until(due))
		return wait()
	}
}

// BenchmarkOpenOverASlowNetwork files new incidents and attached alerts
// through a KV and a bus that each cost one injected 1 ms round trip per
// call (time.Sleep, which overshoots by some 10-40% on a busy machine), so
// that ns/op counts the sequential round trips of the path whatever the
// machine's load; the JetStream figures are BenchmarkIngest's.
//
//	go test -run '^$' -bench SlowNetwork -benchtime 200x ./services/ingester/internal/incidents
func BenchmarkOpenOverASlowNetwork(b *testing.B) {
	for _, tc := range []struct {
		name    string
		senders int
		attach  bool
	}{{"new_incident", 1, false}, {"attach", 1, true}, {"new_incident_8_senders", 8, false}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			x := incidents.New(slowKV{newKV()}, slowPub{newPub()}, 1<<30, time.Hour)
			if _, err := x.Ingest(ctx, alert("warm", "r", "f", t0, contracts.AlertFiring), t0); err != nil {
				b.Fatal(err)
			}
			next := make(chan int)
			var wg sync.WaitGroup
			for range tc.senders {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range next {
						a := alert(fmt.Sprintf("svc-%d", i), "r", "f", t0, contracts.AlertFiring)
						if tc.attach {
							a = alert("warm", "r", fmt.Sprintf("fp-%d", i), t0.Add(time.Duration(i+1)*time.Second), contracts.AlertFiring)
						}
						if _, err := x.Ingest(ctx, a, t0); err != nil {
							b.Error(err)
						}
					}
				}()
			}
			b.ResetTimer()
			s := time.Now()
			for i := range b.N {
				next <- i
			}
			close(next)
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(s).Seconds(), "alerts/s")
		})
	}
}
