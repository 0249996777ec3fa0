package bridge

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
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
		republishLoop(ctx, time.Millisecond, 0, func(context.Context) error {
			n++
			calls <- struct{}{}
			if n < 3 {
				return errors.New("no stream leader")
			}
			return nil
		}, nil, slog.New(slog.DiscardHandler))
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

// Every fullEvery-th round reads every record (another bridge's leftovers);
// the rounds between read only this process's pending answers.
func TestRepublishLoopReadsEverythingOnlyNowAndThen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var own, all atomic.Int64
	done := make(chan struct{})
	go func() {
		republishLoop(ctx, time.Millisecond, 4, func(context.Context) error {
			own.Add(1)
			return nil
		}, func(context.Context) error {
			if all.Add(1) == 3 {
				cancel()
			}
			return nil
		}, slog.New(slog.DiscardHandler))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop never read every record")
	}
	require.Equal(t, int64(3), all.Load())
	require.Equal(t, int64(9), own.Load(), "three own rounds before each full one")
}
