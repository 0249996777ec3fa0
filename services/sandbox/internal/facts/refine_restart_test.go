package facts

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// readRestart reads testdata/restartgap/name: a line a span, seconds from at
// ("!" after the ones off the baseline in the onset's signal), the span's
// service.version and its trace id ("-" for none: a retries onset's marks
// carry none).
func readRestart(t *testing.T, name string, at time.Time) []versionedMark {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "restartgap", name))
	require.NoError(t, err)
	defer f.Close()
	var out []versionedMark
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		s, err := strconv.ParseFloat(strings.TrimSuffix(fs[0], "!"), 64)
		require.NoError(t, err)
		m := SpanMark{At: at.Add(time.Duration(s * float64(time.Second))), Off: strings.HasSuffix(fs[0], "!")}
		if fs[2] != "-" {
			m.Trace = fs[2]
		}
		out = append(out, versionedMark{SpanMark: m, Version: fs[1]})
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out)
	return out
}

// startMassBefore is the posterior chance, under RefineOnset's model
// (onsetPosterior: a start uniform over [lo, the first mark off], the marks
// before that one seen as they were with a share r off after the start),
// that the regression began before t.
func startMassBefore(lo time.Time, marks []SpanMark, t time.Time) float64 {
	first := -1
	for i, m := range marks {
		if m.Off {
			first = i
			break
		}
	}
	if first < 0 {
		return 0
	}
	var total, below float64
	for _, s := range onsetPosterior(lo, marks[:first], marks[first].At, offShare(marks[first:])) {
		total += s.mass()
		if s.from.Before(t) {
			below += s.density * minTime(s.to, t).Sub(s.from).Seconds()
		}
	}
	return below / total
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// TestRefineCannotPlaceARestartGapsStart pins why e2e/incidents-heldout3's
// three releases on a whole minute stay denied (its README, "Read on branch
// h43minute"): the onset's signal (the p95 for claims-digest and
// tariff-engine, hedged retries for dispatch-router) is refined inside its
// bucket (RefineOnset), and the refinement lands a fraction of a second
// after the bucket's start, before the ledger's start 1.5 s in, because the
// bucket holds no span of any version between the old version's last and the
// new version's first (the restart): a start anywhere in that stretch leaves
// the same spans, so RefineOnset's posterior is flat over it and a large
// share of it lies before Docker started the container. Each row is the
// bucket's spans the refinement reads (testdata/restartgap: extracted from
// the corpus's spans with the refinement's filter, signal and threshold).
//
// Every span off is the new version's and no span of the old version lies
// after the ledger's start, so the stale-marker twin (a regression on every
// version that began during the restart, before the container started)
// leaves these spans with the same chance as the release: no reading of the
// sampled spans that allowed these three could deny that twin. The onset
// must stay before the ledger's start, and the chance that the regression
// began before it must stay far above RefineMiss.
func TestRefineCannotPlaceARestartGapsStart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, newVersion string
		on               Onset
		ledger           time.Time
		// gapFrom is the old version's last span in the bucket (the
		// bucket's start when it has none), gapTo the new version's first.
		gapFrom, gapTo float64
		// wantAt is the refined onset, seconds into the bucket; massBefore
		// the least chance that the regression began before the ledger.
		wantAt, massBefore float64
	}{
		{"claims.txt", "0.42.0",
			Onset{At: twinAt(time.Date(2026, 12, 2, 8, 37, 0, 0, time.UTC)), Signal: "p95", P95ThresholdMs: 6881.667, BucketMinutes: 1},
			time.Date(2026, 12, 2, 8, 37, 1, 500000000, time.UTC), 0.426, 3.422, 0.44, 0.3},
		{"tariff.txt", "git-b92a4f1",
			Onset{At: twinAt(time.Date(2026, 12, 2, 15, 40, 0, 0, time.UTC)), Signal: "p95", P95ThresholdMs: 349.435, BucketMinutes: 1},
			time.Date(2026, 12, 2, 15, 40, 1, 500000000, time.UTC), 0, 6.242, 0.45, 0.15},
		{"dispatch.txt", "v5.9.0",
			Onset{At: twinAt(time.Date(2026, 12, 3, 13, 5, 0, 0, time.UTC)), Signal: "retries", QualityKey: "previous-rpc-attempts", BucketMinutes: 1},
			time.Date(2026, 12, 3, 13, 5, 1, 500000000, time.UTC), 0, 2.356, 0.12, 0.6},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			ms := readRestart(t, tc.file, *tc.on.At)
			marks := make([]SpanMark, len(ms))
			for i, m := range ms {
				marks[i] = m.SpanMark
				if m.Off {
					require.Equal(t, tc.newVersion, m.Version, "a span off of the old version")
				}
				if m.Version != tc.newVersion {
					require.False(t, m.At.After(tc.ledger), "the old version served after the ledger's start: an overlap, not a restart")
				}
			}
			at := func(s float64) time.Time { return tc.on.At.Add(time.Duration(s * float64(time.Second))) }
			for _, m := range ms {
				require.False(t, m.At.After(at(tc.gapFrom)) && m.At.Before(at(tc.gapTo)), "a span inside the restart gap at %s", m.At)
			}
			require.True(t, tc.ledger.After(at(tc.gapFrom)) && tc.ledger.Before(at(tc.gapTo)), "the ledger's start lies outside the gap")
			got := RefineOnset(tc.on, marks)
			require.NotNil(t, got.At)
			require.NotEmpty(t, got.Refined, "the onset was not refined")
			t.Logf("refined onset %s (ledger %s): %s", got.At.Format(time.RFC3339Nano), tc.ledger.Format(time.RFC3339Nano), got.Refined)
			require.InDelta(t, tc.wantAt, got.At.Sub(*tc.on.At).Seconds(), 0.01, got.Refined)
			require.True(t, got.At.Before(tc.ledger), "onset %s after the ledger's start %s: the twin would pass", got.At, tc.ledger)
			for _, unit := range [][]SpanMark{marks, PerTrace(marks)} {
				p := startMassBefore(*tc.on.At, unit, tc.ledger)
				t.Logf("chance the regression began before the ledger's start: %.3f (%d marks)", p, len(unit))
				require.Greater(t, p, tc.massBefore)
			}
		})
	}
}
