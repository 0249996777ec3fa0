package contracts

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPoolWaitsFailedDry(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		p    *PoolWaits
		want bool
	}{
		"no pool":                       {nil, false},
		"no spans since the onset":      {&PoolWaits{Failed: 5, EntryErrors: 5}, false},
		"dry, no baseline":              {&PoolWaits{Spans: 40, Failed: 12, EntryErrors: 30}, true},
		"two failures are too few":      {&PoolWaits{Spans: 40, Failed: 2, EntryErrors: 2}, false},
		"a small share of the failures": {&PoolWaits{Spans: 400, Failed: 5, EntryErrors: 100}, false},
		"the baseline failed as often":  {&PoolWaits{Spans: 100, Failed: 10, BaselineSpans: 100, BaselineFailed: 6, EntryErrors: 10}, false},
		"twice the baseline's share":    {&PoolWaits{Spans: 100, Failed: 12, BaselineSpans: 100, BaselineFailed: 6, EntryErrors: 10}, true},
	} {
		require.Equal(t, tc.want, tc.p.FailedDry(), name)
	}
}
