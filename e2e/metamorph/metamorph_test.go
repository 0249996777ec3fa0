package metamorph

import (
	"path/filepath"
	"strings"
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

// The transforms of issue 35 keep the format and their promise: the
// failures of the affected service end up on one operation of three (its
// errors unchanged), and a retried call becomes one client span counting
// its retries (the failing traces and errors of the entry spans unchanged).
func TestSignalTransforms(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"../incidents/retry-storm-01", "../incidents/bad-release-01"} {
		orig, err := Read(dir)
		require.NoError(t, err)
		svc := orig.affected()
		require.NotEmpty(t, svc)
		errs := func(f *Folder) int {
			return count(f.Spans, func(l Line) bool { return l.Service() == svc && l.failed() && (l.kind() == 2 || l.kind() == 5) })
		}
		one, err := OneOperation().Apply(orig)
		require.NoError(t, err)
		require.Equal(t, errs(orig), errs(one))
		failingNames := map[string]bool{}
		for _, l := range one.Spans {
			if l.Service() == svc && l.failed() && l.kind() == 2 {
				failingNames[l.str("name")] = true
			}
		}
		require.Equal(t, 0, count(one.Spans, func(l Line) bool {
			n := l.str("name")
			return l.failed() && (strings.HasSuffix(n, "/preview") || strings.HasSuffix(n, "/export"))
		}), "no renamed operation fails")
		require.Positive(t, count(one.Spans, func(l Line) bool { return strings.HasSuffix(l.str("name"), "/preview") }))
		writeAndLoad(t, one, "one-operation")
	}
	orig, err := Read("../incidents/retry-storm-01")
	require.NoError(t, err)
	svc := orig.affected()
	moved, err := RetriesInAttribute().Apply(orig)
	require.NoError(t, err)
	client := func(f *Folder) int {
		return count(f.Spans, func(l Line) bool { return l.Service() == svc && l.kind() == 3 })
	}
	require.Less(t, client(moved), client(orig))
	require.Positive(t, count(moved.Spans, func(l Line) bool { n, ok := l.attrs()["retry_count"].(float64); return ok && n >= 1 }))
	require.Zero(t, count(moved.Spans, func(l Line) bool {
		_, ok := l.attrs()["http.request.resend_count"]
		return ok && l.Service() == svc && l.kind() == 3 && l.attrs()["retry_count"] != nil
	}))
	writeAndLoad(t, moved, "retries-in-attribute")
	// A recording without retries is refused.
	_, err = RetriesInAttribute().Apply(mustRead(t, "../incidents/bad-release-01"))
	require.ErrorIs(t, err, ErrTransform)
}

func mustRead(t *testing.T, dir string) *Folder {
	t.Helper()
	f, err := Read(dir)
	require.NoError(t, err)
	return f
}

func writeAndLoad(t *testing.T, f *Folder, name string) {
	t.Helper()
	dir, err := f.Write(t.TempDir(), "x-"+name)
	require.NoError(t, err)
	_, err = incident.Load(dir)
	require.NoError(t, err)
}
