package metamorph

import (
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

const sample = "../external/orders-null-deref"

func count(ls []Line, pred func(Line) bool) int {
	n := 0
	for _, l := range ls {
		if pred(l) {
			n++
		}
	}
	return n
}

func markers(f *Folder) int { return count(f.Spans, Line.IsMarker) }

// TestTransformsKeepTheFormatAndTheirPromise applies each transform to a
// hand-written incident, loads the result with the format's own loader and
// checks the one property each transform promises.
func TestTransformsKeepTheFormatAndTheirPromise(t *testing.T) {
	t.Parallel()
	orig, err := Read(sample)
	require.NoError(t, err)
	first := earliest(orig.Spans)
	traces := func(f *Folder) int {
		seen := map[string]bool{}
		for _, l := range f.Spans {
			if !l.IsMarker() {
				seen[l.str("trace_id")] = true
			}
		}
		return len(seen)
	}
	for _, tc := range []struct {
		name  string
		tr    Transform
		check func(t *testing.T, got *Folder)
	}{
		{"cut", Cut(first.Add(10 * time.Minute)), func(t *testing.T, got *Folder) {
			require.Zero(t, count(got.Spans, func(l Line) bool { return l.Time().Before(first.Add(10 * time.Minute)) }))
			require.Equal(t, markers(orig), markers(got))
		}},
		{"extend by six hours", Extend(6*time.Hour, 10*time.Minute), func(t *testing.T, got *Folder) {
			require.Equal(t, first.Add(-6*time.Hour).Truncate(time.Second), earliest(got.Spans).Truncate(time.Second))
			require.Equal(t, markers(orig), markers(got), "a marker is never copied")
		}},
		{"traffic ×10", Multiply(10), func(t *testing.T, got *Folder) {
			require.Equal(t, 10*traces(orig), traces(got))
			require.Equal(t, markers(orig), markers(got))
		}},
		{"traffic ÷5", Sample(5, "traffic-div5"), func(t *testing.T, got *Folder) {
			require.InDelta(t, float64(traces(orig))/5, float64(traces(got)), float64(traces(orig))/10)
			require.Equal(t, markers(orig), markers(got))
		}},
		{"semconv old", Semconv("old"), func(t *testing.T, got *Folder) {
			require.Zero(t, count(got.Spans, func(l Line) bool { _, ok := attrs(l)["http.response.status_code"]; return ok }))
			require.Positive(t, count(got.Spans, func(l Line) bool { _, ok := attrs(l)["http.status_code"]; return ok }))
			// new → old → new is the identity on names (the original mixes
			// generations, as real fleets do, so it is not the reference).
			n1, err := Semconv("new").Apply(orig)
			require.NoError(t, err)
			o, err := Semconv("old").Apply(n1)
			require.NoError(t, err)
			n2, err := Semconv("new").Apply(o)
			require.NoError(t, err)
			for i := range n1.Spans {
				require.Equal(t, keys(attrs(n1.Spans[i])), keys(attrs(n2.Spans[i])), "line %d", i+1)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.tr.Apply(orig)
			require.NoError(t, err)
			tc.check(t, got)
			dir, err := got.Write(t.TempDir(), "orders-"+tc.tr.Name)
			require.NoError(t, err)
			inc, err := incident.Load(dir)
			require.NoError(t, err)
			require.Equal(t, filepath.Base(dir), inc.Meta.ID)
		})
	}
	// The original is never modified.
	again, err := Read(sample)
	require.NoError(t, err)
	require.Equal(t, encodeLines(again.Spans), encodeLines(orig.Spans))
}

func attrs(l Line) map[string]any {
	var m map[string]any
	_ = jsonUnmarshal(l["attributes"], &m)
	return m
}

func keys(m map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}
