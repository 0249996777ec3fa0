package facts_test

import (
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// peerWorld is a service calling one peer ("search") under a tail sampler
// that keeps every failed trace and, of the rest, those whose
// trace_id_low64 reading is under 0.1. Since the onset, fail of the
// requests fail (peerFails: because their call to the peer failed, else
// in the service's own code), each request calls the peer calls times
// (once before), and the peer's calls take peerMs (20 ms before).
type peerWorld struct {
	fail      float64
	peerFails bool
	calls     int
	peerMs    int
	// arrivals are the requests since the onset (3,000 when 0; 3,000
	// before it).
	arrivals int
}

// draw is the world's two samples of kept entry spans (300 arrivals a
// minute, 10 minutes each side, cut to the latest 1,000) and the service's
// client spans of the kept traces.
func (w peerWorld) draw(seed uint64) (facts.TraceSample, facts.TraceSample, []signoz.RawRow) {
	r := rand.New(rand.NewPCG(seed, 24))
	keep := consistent("trace_id_low64", 0.1)
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	var rows []signoz.RawRow
	window := func(from time.Time, since bool) facts.TraceSample {
		var kept []facts.SampledTrace
		var spans [][]signoz.RawRow
		n := 3000
		if since && w.arrivals > 0 {
			n = w.arrivals
		}
		for range n {
			var id [16]byte
			for i := range id {
				id[i] = byte(r.IntN(256))
			}
			t := facts.SampledTrace{TraceID: hex.EncodeToString(id[:]), At: from.Add(time.Duration(r.Float64() * float64(10*time.Minute)))}
			calls, ms, peerErr := 1, 20, false
			if since {
				calls, ms = w.calls, w.peerMs
				t.Error = r.Float64() < w.fail
				peerErr = t.Error && w.peerFails
			}
			t.Duration = time.Duration(30+calls*ms+r.IntN(20)) * time.Millisecond
			if !t.Error && !keep(r, id) {
				continue
			}
			kept = append(kept, t)
			var cs []signoz.RawRow
			for range calls {
				cs = append(cs, signoz.RawRow{Timestamp: t.At, Data: map[string]any{"trace_id": t.TraceID, "service.name": "catalog", "kind_string": "Client",
					"server.address": "search", "has_error": peerErr, "duration_nano": float64((ms + r.IntN(5)) * 1e6)}})
			}
			spans = append(spans, cs)
		}
		order := make([]int, len(kept))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return kept[b].At.Compare(kept[a].At) })
		var out []facts.SampledTrace
		for _, i := range order[:min(len(order), 1000)] {
			out = append(out, kept[i])
			rows = append(rows, spans[i]...)
		}
		return facts.TraceSample{Traces: out, From: from, To: from.Add(10 * time.Minute), Limit: 1000}
	}
	base := window(t0, false)
	return base, window(t0.Add(11*time.Minute), true), rows
}

// TestConsistentPeers: within the traces a consistent sampler kept by
// trace id alone, a dependency that began failing at its usual call rate
// is failing, and one that slowed is slow, though its kept calls rose
// with the failing traces the sampler keeps; a retry storm's calls rise
// within that share too, and a release's own failures leave the peer's
// calls clean. Red with sandbox.consistent_dependencies.
func TestConsistentPeers(t *testing.T) {
	cases := []struct {
		name          string
		w             peerWorld
		failing, slow bool
		keptRise      bool // the kept calls rose over 1.5x: the kept series calls it no usual rate
	}{
		{"the peer fails 40% of the calls at its usual rate", peerWorld{fail: 0.4, peerFails: true, calls: 1, peerMs: 20}, true, false, true},
		{"the peer slowed 20x and fails a third of the calls", peerWorld{fail: 0.33, peerFails: true, calls: 1, peerMs: 400}, true, true, true},
		{"a retry storm: four calls a request, the peer failing", peerWorld{fail: 0.4, peerFails: true, calls: 4, peerMs: 20}, false, false, true},
		{"a retry storm, three calls a request, while the arrivals fell to half: its calls a minute 1.5x", peerWorld{fail: 0.4, peerFails: true, calls: 3, peerMs: 20, arrivals: 1500}, false, false, true},
		{"a release failing in its own code: the peer's calls clean", peerWorld{fail: 0.4, calls: 1, peerMs: 20}, false, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(3) {
				base, since, rows := tc.w.draw(seed)
				a := facts.ConsistentArrivals(base, since)
				require.NotNil(t, a)
				require.Equal(t, "trace_id_low64", a.Reading)
				ps := facts.ConsistentPeers(rows, "catalog", []string{"server.address"}, facts.CountedTraces(a, base), facts.CountedTraces(a, since))
				require.Len(t, ps, 1)
				p := ps[0]
				kept := keptRatio(rows, base, since)
				require.Equal(t, tc.keptRise, kept > contracts.DependencyCallRatio, "kept calls %.2fx", kept)
				require.Equal(t, tc.failing, slices.Contains(facts.ConsistentFailingPeers(ps), "search"), "%+v", p)
				require.Equal(t, tc.slow, slices.Contains(facts.ConsistentSlowPeers(ps), "search"), "%+v", p)
			}
		})
	}
	require.Nil(t, facts.ConsistentPeers(nil, "catalog", []string{"server.address"}, nil, nil))
	require.Nil(t, facts.CountedTraces(nil, facts.TraceSample{}))
}

// keptRatio is the kept calls a minute since the onset over the
// baseline's, over the samples' own spans of time.
func keptRatio(rows []signoz.RawRow, base, since facts.TraceSample) float64 {
	in := func(s facts.TraceSample) float64 {
		from := s.To
		for _, t := range s.Traces {
			if t.At.Before(from) {
				from = t.At
			}
		}
		n := 0
		for _, r := range rows {
			if !r.Timestamp.Before(from) && r.Timestamp.Before(s.To) {
				n++
			}
		}
		return float64(n) / s.To.Sub(from).Minutes()
	}
	return in(since) / in(base)
}
