package wait_test

import (
	"context"
	"testing"
	"time"

	"agentk/platform/wait"

	"github.com/stretchr/testify/require"
)

func TestSleep(t *testing.T) {
	t.Parallel()
	live := context.Background()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want error
	}{
		{"the whole wait", live, time.Millisecond, nil},
		{"no wait", live, 0, nil},
		{"a negative wait", live, -time.Second, nil},
		{"cut short by the context", ended, time.Hour, context.Canceled},
		{"no wait on an ended context", ended, 0, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.ErrorIs(t, wait.Sleep(tt.ctx, tt.d), tt.want)
		})
	}
}

// Every calls fn on each tick and returns once the context ends.
func TestEvery(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait.Every(ctx, time.Millisecond, func(context.Context) {
			calls++
			if calls == 3 {
				cancel()
			}
		})
	}()
	<-done
	require.Equal(t, 3, calls)
}
