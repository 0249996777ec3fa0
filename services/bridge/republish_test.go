package bridge

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The loop keeps retrying, through errors, until the context ends.
func TestRepublishLoopRetriesUntilStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := make(chan struct{}, 10)
	n := 0
	done := make(chan struct{})
	go func() {
		republishLoop(ctx, time.Millisecond, func(context.Context) error {
			n++
			calls <- struct{}{}
			if n < 3 {
				return errors.New("no stream leader")
			}
			return nil
		}, slog.New(slog.DiscardHandler))
		close(done)
	}()
	for i := 0; i < 3; i++ {
		select {
		case <-calls:
		case <-time.After(10 * time.Second):
			t.Fatal("republish was not retried")
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop did not stop with its context")
	}
	require.GreaterOrEqual(t, n, 3)
}
