package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// TestTrafficRatio: the mean requests per minute from the onset to the
// last minute with data over the baseline's mean; nil without a baseline
// or with no request in it.
func TestTrafficRatio(t *testing.T) {
	t.Parallel()
	series := func(base, after float64) []facts.Minute {
		var ms []facts.Minute
		for i := range 60 {
			n := base
			if i >= 40 {
				n = after
			}
			ms = append(ms, facts.Minute{At: at(i), Requests: n})
		}
		return ms
	}
	tests := []struct {
		name string
		ms   []facts.Minute
		from time.Time
		want *float64
	}{
		{"traffic tripled", series(10, 30), at(10), ptr(3)},
		{"flat", series(10, 10), at(10), ptr(1)},
		{"halved", series(10, 5), at(0), ptr(0.5)},
		{"no request in the baseline", series(0, 10), at(10), nil},
		{"no baseline", series(10, 30), time.Time{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, facts.TrafficRatio(tc.ms, tc.from, at(40)))
		})
	}
}

// TestAlternatives: another service whose own onset is within
// CoRegressionWindow of this one's is co-regressed, with its threshold and
// load; one whose onset is far keeps only its onset; inbound traffic is
// read from the root spans; a response that is no time series is
// ErrBadResponse.
func TestAlternatives(t *testing.T) {
	t.Parallel()
	traffic := func(svc string) []ser {
		return []ser{
			{labels("service.name", svc), 0, flat(0, 60, 20)},
			{labels("service.name", svc), 1, flat(0, 60, 100e6)},
		}
	}
	errs := func(svc string, from int) ser {
		return ser{labels("service.name", svc), 0, minutes(0, 60, func(i int) float64 {
			if i >= from {
				return 10
			}
			return 0
		})}
	}
	others := response(t, append(traffic("db"), traffic("cache")...)...)
	othersErr := response(t, errs("db", 42), errs("cache", 12))
	roots := response(t, ser{labels(), 0, minutes(0, 60, func(i int) float64 {
		if i >= 40 {
			return 40
		}
		return 20
	})})
	versions := response(t)
	onset := at(40)
	alert := at(55)
	got, err := facts.Alternatives(roots, versions, facts.EntryArrivals{}, others, othersErr, alert, facts.Onset{At: &onset, BaselineFrom: at(0)})
	require.NoError(t, err)
	require.Equal(t, []string{"db"}, got.CoRegressed)
	require.Equal(t, ptr(2), got.TrafficRatio)
	require.Contains(t, got.Thresholds, "db")
	require.Contains(t, got.Load, "db")
	require.NotContains(t, got.Thresholds, "cache")
	require.NotEmpty(t, got.Series["db"], "a co-regressed service's minutes")
	require.NotContains(t, got.Series, "cache")
	require.Contains(t, got.Onsets, "cache", "a far onset is still an onset")
	require.True(t, got.Onsets["db"].At.Sub(onset).Abs() <= facts.CoRegressionWindow)
	_, err = facts.Alternatives(roots, versions, facts.EntryArrivals{}, rawResponse(), othersErr, alert, facts.Onset{At: &onset, BaselineFrom: at(0)})
	require.ErrorIs(t, err, facts.ErrBadResponse)
}

func ptr(f float64) *float64 { return &f }
