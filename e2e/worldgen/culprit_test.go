package worldgen

import (
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestCulpritWorlds writes culprit worlds and reads them back with the
// format's loader: each carries expect.culprit naming a service of
// releases.yaml, the shapes keep their promises in the telemetry (where the
// alerted service's failures begin, who released when, scope and ledger),
// and every shape is drawn.
func TestCulpritWorlds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := GenerateCulprit(5, 18)
	require.NoError(t, Write(dir, ws))
	shapes := map[Variant]int{}
	hops := map[int]bool{}
	for _, w := range ws {
		c := w.Chain
		shapes[c.Shape]++
		hops[len(c.Hops)] = true
		inc, err := incident.Load(filepath.Join(dir, w.ID))
		require.NoError(t, err, w.ID)
		require.Equal(t, w.Expect, inc.Meta.Expect, w.ID)
		require.Equal(t, contracts.VerdictDeny, inc.Meta.Expect.Verdict, "%s: the alerted service's rollback is never right", w.ID)
		cul := inc.Meta.Expect.Culprit
		require.NotNil(t, cul, w.ID)
		origin := c.Hops[c.Origin]
		require.Equal(t, origin, cul.Service, w.ID)
		require.Contains(t, inc.Releases.ServiceNames(), origin, w.ID)

		f := measureOrigin(inc, w.Topo.Affected, origin, w.Onset)
		switch c.Shape {
		case ShapeSlowChild:
			require.Greater(t, f.slowAfter, 3*f.slowBefore, "%s: the child is slow since the onset", w.ID)
			d, ok := w.deployOf(w.Topo.Affected)
			require.True(t, ok && d.At.Before(w.Onset), "%s: the alerted service released before the onset", w.ID)
			_, ok = w.deployOf(origin)
			require.False(t, ok, "%s: the slow child released nothing", w.ID)
		case ShapeNotOrigin:
			require.GreaterOrEqual(t, f.failing, 6, w.ID)
			require.Less(t, f.share(), 0.35, "%s: the released callee carries a small share", w.ID)
			require.Positive(t, f.atOrigin, w.ID)
		default:
			require.GreaterOrEqual(t, f.failing, 6, w.ID)
			require.GreaterOrEqual(t, f.share(), 0.6, "%s: most failures begin at the origin", w.ID)
		}
		if c.Shape != ShapeSlowChild {
			d, ok := w.deployOf(origin)
			require.True(t, ok, w.ID)
			require.True(t, d.At.Before(w.Onset) && w.Onset.Sub(d.At) <= 20*time.Minute, "%s: released before the onset", w.ID)
			entries := inc.Releases.Services[origin]
			require.GreaterOrEqual(t, len(entries), 2, "%s: a rollback target", w.ID)
			require.Equal(t, d.Version, entries[len(entries)-1].Version, w.ID)
		}
		inScope := slices.Contains(inc.SandboxScope(), origin)
		require.Equal(t, c.Shape != ShapeOriginOutOfScope, inScope, w.ID)
		require.Equal(t, c.Shape == ShapeOriginCooldown, slices.ContainsFunc(inc.Meta.PriorActions, func(p incident.PriorAction) bool {
			return p.Service == origin && inc.Meta.Now.Sub(p.At) < cooldown
		}), w.ID)
		want := contracts.VerdictDeny
		if c.Shape == ShapeCalleeBroke || c.Shape == ShapeTwoHops {
			want = contracts.VerdictAllow
		}
		require.Equal(t, want, cul.Verdict, w.ID)
	}
	for _, s := range CulpritShapes {
		require.Equal(t, 3, shapes[s], s)
	}
	require.Len(t, hops, 3, "one to three hops")
}

// originMeasure is what the telemetry says about where the alerted
// service's failures since the onset begin.
type originMeasure struct {
	failing, atOrigin     int
	slowBefore, slowAfter float64 // the origin's median server span, ms
}

func (m originMeasure) share() float64 { return float64(m.atOrigin) / float64(m.failing) }

func measureOrigin(inc *incident.Incident, alerted, origin string, onset time.Time) originMeasure {
	var m originMeasure
	failingTrace := map[string]bool{}
	originFailed := map[string]bool{}
	var before, after []float64
	for _, s := range inc.Spans {
		server := s.Kind == 2
		switch {
		case server && s.Service() == alerted && s.HasError && !s.Timestamp.Before(onset):
			failingTrace[s.TraceID] = true
		case server && s.Service() == origin && s.HasError:
			originFailed[s.TraceID] = true
		}
		if server && s.Service() == origin {
			ms := float64(s.DurationNano) / 1e6
			if s.Timestamp.Before(onset) {
				before = append(before, ms)
			} else {
				after = append(after, ms)
			}
		}
	}
	for id := range failingTrace {
		m.failing++
		if originFailed[id] {
			m.atOrigin++
		}
	}
	m.slowBefore, m.slowAfter = median(before), median(after)
	return m
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

// TestCulpritDeterministic: a culprit world is the same world every time,
// and its draws are not the ordinary worlds'.
func TestCulpritDeterministic(t *testing.T) {
	t.Parallel()
	a, b := DrawCulprit(9, 4), DrawCulprit(9, 4)
	require.Equal(t, a, b)
	require.Equal(t, Emit(a), Emit(b))
	require.NotEqual(t, DrawCulprit(9, 5).Chain.Shape, a.Chain.Shape)
}
