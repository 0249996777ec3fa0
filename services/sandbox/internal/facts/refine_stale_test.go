package facts

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// versionedMark is a span of testdata/staletwins: its mark and version.
type versionedMark struct {
	SpanMark
	Version string
}

// readTwin reads testdata/staletwins/name: a line a span, seconds from at
// ("!" after the ones off the baseline) and the span's service.version.
func readTwin(t *testing.T, name string, at time.Time) []versionedMark {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "staletwins", name))
	require.NoError(t, err)
	defer f.Close()
	var out []versionedMark
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 2 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		s, err := strconv.ParseFloat(strings.TrimSuffix(fs[0], "!"), 64)
		require.NoError(t, err)
		m := SpanMark{At: at.Add(time.Duration(s * float64(time.Second))), Off: strings.HasSuffix(fs[0], "!")}
		out = append(out, versionedMark{SpanMark: m, Version: fs[1]})
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out)
	return out
}

// oldNeverFailing is the chance that the old version's spans from `from` on
// are all on the baseline had it been failing at the share r: (1−r)^n.
func oldNeverFailing(ms []versionedMark, newVersion string, from time.Time, r float64) float64 {
	n := 0
	for _, m := range ms {
		if m.Version != newVersion && !m.At.Before(from) {
			n++
		}
	}
	return math.Pow(1-r, float64(n))
}

// TestRefineKeepsStaleMarkerTwinsBeforeTheMarker is the trap a bound from the
// versions would let through (e2e/incidents-heldout2's README, "Read on branch
// h41refine"). Each row is the onset's bucket of a held-out release sampled 1
// in 8 (testdata/staletwins: the spans the refinement reads, with their
// versions), whose first failure came seconds after the marker. The same
// spans are what its stale-marker twin leaves: a regression that began on
// every version a second or three before the marker (a flag flipped, a
// provider's change) and went on while the new version took over, no span
// of the old version sampled after it began
// (TestStaleMarkerTwinsOfHeldout2AreDenied replays the twins). Nothing
// sampled tells the two apart:
//
//   - every span off is of the new version, in the release and in the twin;
//   - no span of the old version lies after the first span off, so "the old
//     version, failing as the new one does, would have shown a failure" has
//     nothing to count (chance 1);
//   - counted from the bucket's start instead, it counts the old version's
//     spans from before the twin's start and is "significant" (below 0.05)
//     in two of the three: that test would roll the twins back.
//
// The refined onset must stay before the marker.
func TestRefineKeepsStaleMarkerTwinsBeforeTheMarker(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, newVersion string
		on               Onset
		marker           time.Time
		// naive is whether the old version's spans since the bucket's
		// start would call the regression bound to the new version.
		naive bool
	}{
		{"prompt.txt", "2026.11.17.2",
			Onset{At: twinAt(time.Date(2026, 11, 17, 14, 16, 0, 0, time.UTC)), Signal: "value_share", QualityKey: "larder.answer.check", QualityValue: "unit_mismatch", BucketMinutes: 1},
			time.Date(2026, 11, 17, 14, 16, 13, 482551907, time.UTC), false},
		{"bundle.txt", "5.14.0",
			Onset{At: twinAt(time.Date(2026, 12, 1, 10, 20, 0, 0, time.UTC)), Signal: "error_rate", ErrorThreshold: 0.05, BucketMinutes: 1},
			time.Date(2026, 12, 1, 10, 20, 28, 5000000, time.UTC), true},
		{"storm.txt", "7.2.0",
			Onset{At: twinAt(time.Date(2026, 11, 26, 11, 39, 0, 0, time.UTC)), Signal: "error_rate", ErrorThreshold: 0.05, BucketMinutes: 1},
			time.Date(2026, 11, 26, 11, 39, 7, 771000000, time.UTC), true},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			ms := readTwin(t, tc.file, *tc.on.At)
			marks := make([]SpanMark, len(ms))
			first := -1
			for i, m := range ms {
				marks[i] = m.SpanMark
				if m.Off {
					require.Equal(t, tc.newVersion, m.Version, "a span off of the old version: not a twin")
					if first < 0 {
						first = i
					}
				}
			}
			require.GreaterOrEqual(t, first, 0)
			require.True(t, ms[first].At.After(tc.marker), "the first span off precedes the marker")
			r := offShare(marks[first:])
			require.InDelta(t, 1, oldNeverFailing(ms, tc.newVersion, ms[first].At, r), 1e-9, "the old version served after the first span off")
			require.Equal(t, tc.naive, oldNeverFailing(ms, tc.newVersion, *tc.on.At, r) < RefineMiss)
			got := RefineOnset(tc.on, marks)
			require.NotNil(t, got.At)
			require.True(t, got.At.Before(tc.marker), "onset %s after the marker %s: the stale-marker twin would pass", got.At, tc.marker)
		})
	}
}

func twinAt(t time.Time) *time.Time { return &t }
