package worldgen

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestQueueWorldsAreDrawnWide: about QueueShare of the traffic_surge and
// resource_saturation worlds are queue consumers, and no world of another
// class; their queues are drawn wide (systems, destinations, a baseline lag
// of milliseconds to seconds, a growth of a twentieth of a second to seconds
// a second). In the telemetry of the first of each class, the affected
// service's consumer spans are children of the caller's producer spans in
// the same trace, with the messaging attributes, and a message waits far
// longer after the onset than before it (its median three times at least). (That the draw moves no other
// world was checked by writing a seed with main's generator and this one:
// every world without it is byte-identical.)
func TestQueueWorldsAreDrawnWide(t *testing.T) {
	t.Parallel()
	eligible, n := 0, 0
	systems, growth := map[string]bool{}, []float64{}
	emitted := map[string]bool{}
	for i := range 300 {
		w := Draw(41, i)
		if w.Class != "traffic_surge" && w.Class != "resource_saturation" {
			require.False(t, w.Has(QueueConsumer), w.ID)
			continue
		}
		eligible++
		if !w.Has(QueueConsumer) {
			continue
		}
		n++
		e := newEmitter(w)
		e.setup()
		systems[e.queue.system] = true
		growth = append(growth, e.queue.lagGrowth)
		if !emitted[w.Class] {
			emitted[w.Class] = true
			requireLagRises(t, w)
		}
	}
	require.InDelta(t, QueueShare, float64(n)/float64(eligible), 0.12)
	require.GreaterOrEqual(t, len(systems), 4, "systems drawn")
	sort.Float64s(growth)
	require.Less(t, growth[0], 0.15)
	require.Greater(t, growth[len(growth)-1], 1.0)
	require.Len(t, emitted, 2)
}

// requireLagRises checks w's messages: consumer spans beneath producer
// spans, and the median wait after the onset three times the one before.
func requireLagRises(t *testing.T, w World) {
	t.Helper()
	tel := Emit(w)
	pub := map[string]time.Time{}
	for _, s := range tel.Spans {
		if s.Kind == kindProducer {
			pub[s.TraceID+s.SpanID] = s.at
			require.Equal(t, w.Topo.Caller, s.Resource["service.name"])
			require.NotEmpty(t, s.Attributes["messaging.destination.name"])
		}
	}
	var before, after []float64
	for _, s := range tel.Spans {
		if s.Kind != kindConsumer {
			continue
		}
		require.Equal(t, w.Topo.Affected, s.Resource["service.name"])
		p, ok := pub[s.TraceID+s.ParentSpanID]
		require.True(t, ok, "a consumer span's parent is a producer span of its trace")
		if p.Before(w.Onset) {
			before = append(before, s.at.Sub(p).Seconds())
		} else {
			after = append(after, s.at.Sub(p).Seconds())
		}
	}
	require.NotEmpty(t, before, w.ID)
	require.NotEmpty(t, after, w.ID)
	sort.Float64s(before)
	sort.Float64s(after)
	require.Greater(t, after[len(after)/2], 3*before[len(before)/2], w.ID)
}
