package admission_test

import (
	"testing"
	"time"

	"agentk/services/ingester/internal/admission"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func TestSlots(t *testing.T) {
	t.Parallel()
	type op struct {
		do   string // acquire, release, hold, busy
		id   string
		at   time.Duration
		want any // acquire: bool; busy: int
	}
	tests := []struct {
		name string
		max  int
		ops  []op
	}{
		{"fills up, then refuses", 2, []op{
			{"acquire", "a", 0, true}, {"acquire", "b", 1, true}, {"acquire", "c", 2, false}, {"busy", "", 3, 2},
		}},
		{"a slot already held is acquired again", 1, []op{
			{"acquire", "a", 0, true}, {"acquire", "a", time.Second, true}, {"busy", "", 2, 1},
		}},
		{"a release frees the slot", 1, []op{
			{"acquire", "a", 0, true}, {"release", "a", 0, nil}, {"acquire", "b", 1, true}, {"busy", "", 2, 1},
		}},
		{"an expired lease frees the slot", 1, []op{
			{"acquire", "a", 0, true}, {"acquire", "b", 9 * time.Minute, false}, {"acquire", "b", 10 * time.Minute, true},
		}},
		{"a re-acquired slot keeps its newer lease", 2, []op{
			{"acquire", "a", 0, true}, {"release", "a", 0, nil}, {"acquire", "a", 5 * time.Minute, true},
			{"busy", "", 12 * time.Minute, 1}, {"busy", "", 15 * time.Minute, 0},
		}},
		{"a hold out of order is counted and expires in order", 3, []op{
			{"hold", "late", 5 * time.Minute, nil}, {"hold", "early", 0, nil}, {"busy", "", time.Minute, 2},
			{"busy", "", 10 * time.Minute, 1}, {"busy", "", 15 * time.Minute, 0},
		}},
		{"releasing what is not held does nothing", 1, []op{
			{"release", "x", 0, nil}, {"busy", "", 0, 0}, {"acquire", "a", 0, true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := admission.NewSlots(tc.max, 10*time.Minute)
			for i, o := range tc.ops {
				now := t0.Add(o.at)
				switch o.do {
				case "acquire":
					require.Equal(t, o.want, s.Acquire(o.id, now), "op %d", i)
				case "release":
					s.Release(o.id)
				case "hold":
					s.Hold(o.id, now)
				case "busy":
					require.Equal(t, o.want, s.Busy(now), "op %d", i)
				}
			}
		})
	}
}

func TestSlotsReset(t *testing.T) {
	t.Parallel()
	s := admission.NewSlots(2, 10*time.Minute)
	require.True(t, s.Acquire("gone", t0))
	s.Reset([]admission.Record{
		{IncidentID: "a", State: admission.StateInvestigating, ReleasedAt: t0.Add(-9 * time.Minute)},
		{IncidentID: "b", State: admission.StateQueued},
		{IncidentID: "c", State: admission.StateDecided, ReleasedAt: t0},
	})
	require.Equal(t, 1, s.Busy(t0), "only the bucket's investigating incidents hold slots")
	require.Equal(t, 0, s.Busy(t0.Add(time.Minute)))
}

func TestNextOpening(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"inc-1": "inc-1-r2", "inc-1-r2": "inc-1-r3", "inc-1-r9": "inc-1-r10", "inc-x-rx": "inc-x-rx-r2", "inc-1-r1": "inc-1-r1-r2",
	} {
		require.Equal(t, want, admission.NextOpening(in), in)
	}
}

func TestHolds(t *testing.T) {
	t.Parallel()
	r := admission.Record{State: admission.StateQueued}.Release(t0)
	require.True(t, r.Holds(t0.Add(time.Minute), 10*time.Minute))
	require.False(t, r.Holds(t0.Add(10*time.Minute), 10*time.Minute))
	r.State = admission.StateDecided
	require.False(t, r.Holds(t0, 10*time.Minute))
}
