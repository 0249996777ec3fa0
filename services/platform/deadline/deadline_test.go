package deadline_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"agentk/platform/deadline"

	"github.com/stretchr/testify/require"
)

type fixed struct {
	at time.Time
	ok bool
}

func (f fixed) Deadline() (time.Time, bool) { return f.at, f.ok }

func TestContextEndsBeforeTheTestsDeadline(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(time.Hour)
	tests := []struct {
		name     string
		test     deadline.Test
		margin   time.Duration
		want     time.Time
		deadline bool
	}{
		{"the test's deadline less the margin", fixed{at, true}, time.Minute, at.Add(-time.Minute), true},
		{"no margin", fixed{at, true}, 0, at, true},
		{"no deadline: only the parent ends it", fixed{}, time.Minute, time.Time{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := deadline.Context(context.Background(), tc.test, tc.margin)
			defer cancel()
			got, ok := ctx.Deadline()
			require.Equal(t, tc.deadline, ok)
			require.True(t, tc.want.Equal(got), "deadline %s, want %s", got, tc.want)
		})
	}
	// The real thing: go test always sets -test.timeout (10m by default).
	if d, ok := t.Deadline(); ok {
		ctx, cancel := deadline.Context(context.Background(), t, time.Second)
		defer cancel()
		got, _ := ctx.Deadline()
		require.True(t, d.Add(-time.Second).Equal(got))
	}
}

func TestFromFlagsReadsTheTestTimeout(t *testing.T) {
	t.Parallel()
	d, ok := deadline.FromFlags().Deadline()
	if _, has := t.Deadline(); !has {
		require.False(t, ok, "-test.timeout 0: no deadline")
		return
	}
	require.True(t, ok)
	require.True(t, d.After(time.Now()))
}

func TestReportSaysHowLongTheWorkHasRun(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var got []time.Duration
		stop := deadline.Report(30*time.Second, func(spent time.Duration) { got = append(got, spent) })
		time.Sleep(95 * time.Second) // the bubble's fake clock: no real wait
		stop()
		require.Equal(t, []time.Duration{30 * time.Second, time.Minute, 90 * time.Second}, got)
		time.Sleep(time.Minute)
		require.Len(t, got, 3, "nothing after stop")
	})
}
