package human_test

import (
	"testing"
	"time"

	"agentk/platform/human"

	"github.com/stretchr/testify/require"
)

func TestDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   time.Duration
		want string
	}{
		{"zero", 0, "0 s"},
		{"microseconds", 400 * time.Microsecond, "< 1 ms"},
		{"the console's old 36.77277ms", 36772770 * time.Nanosecond, "37 ms"},
		{"seconds with a tenth", 4200 * time.Millisecond, "4.2 s"},
		{"whole seconds", 3 * time.Second, "3 s"},
		{"tens of seconds", 42400 * time.Millisecond, "42 s"},
		{"minutes and seconds", 2*time.Minute + 5*time.Second, "2 min 5 s"},
		{"whole minutes", 15 * time.Minute, "15 min"},
		{"just under an hour rounds up to it", time.Hour - 400*time.Millisecond, "1 h"},
		{"hours", time.Hour + 4*time.Minute + 20*time.Second, "1 h 4 min"},
		{"days", 51 * time.Hour, "2 d 3 h"},
		{"negative reads as its size", -90 * time.Second, "1 min 30 s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, human.Duration(tt.in))
		})
	}
}
