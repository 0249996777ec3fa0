package natsport

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"

	"agentk/contracts"
	"agentk/platform/bus"

	"github.com/stretchr/testify/require"
)

func alertOf(id string) contracts.AlertV1 { return contracts.AlertV1{IncidentID: id, Service: "svc"} }

// TestOnePerIncident: a finished incident's report is returned again without
// a second investigation, a failed one is investigated again, and the cache
// forgets the oldest beyond its size.
func TestOnePerIncident(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	fail := errors.New("sandbox down")
	next := func(_ context.Context, a contracts.AlertV1, _ []byte) (bus.Out, error) {
		calls.Add(1)
		if a.IncidentID == "bad" {
			return bus.Out{}, fail
		}
		return bus.Out{MsgID: "out-" + a.IncidentID}, nil
	}
	h := onePerIncident(2, slog.New(slog.DiscardHandler), next)
	ctx := context.Background()
	steps := []struct {
		incident string
		msgID    string
		err      error
		calls    int32
	}{
		{"a", "out-a", nil, 1},
		{"a", "out-a", nil, 1}, // remembered
		{"bad", "", fail, 2},
		{"bad", "", fail, 3}, // failures are not remembered
		{"b", "out-b", nil, 4},
		{"c", "out-c", nil, 5}, // a is forgotten: the cache holds 2
		{"a", "out-a", nil, 6},
		{"c", "out-c", nil, 6},
	}
	for i, s := range steps {
		out, err := h(ctx, alertOf(s.incident), nil)
		require.ErrorIs(t, err, s.err, "step %d", i)
		require.Equal(t, s.msgID, out.MsgID, "step %d", i)
		require.Equal(t, s.calls, calls.Load(), "step %d", i)
	}
}

// TestOnePerIncidentInProgress: an alert of an incident whose investigation
// is still running is ErrInProgress; another incident runs.
func TestOnePerIncidentInProgress(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}), make(chan struct{})
	next := func(_ context.Context, a contracts.AlertV1, _ []byte) (bus.Out, error) {
		if a.IncidentID == "slow" {
			close(started)
			<-release
		}
		return bus.Out{MsgID: a.IncidentID}, nil
	}
	h := onePerIncident(8, slog.New(slog.DiscardHandler), next)
	done := make(chan error, 1)
	go func() {
		_, err := h(context.Background(), alertOf("slow"), nil)
		done <- err
	}()
	<-started
	_, err := h(context.Background(), alertOf("slow"), nil)
	require.ErrorIs(t, err, ErrInProgress)
	out, err := h(context.Background(), alertOf("other"), nil)
	require.NoError(t, err)
	require.Equal(t, "other", out.MsgID)
	close(release)
	require.NoError(t, <-done)
}

// TestLimit: at most n run at once; a caller waiting for a slot gives up
// when its context ends.
func TestLimit(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}, 4), make(chan struct{})
	var running, peak atomic.Int32
	next := func(context.Context, contracts.AlertV1, []byte) (bus.Out, error) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		entered <- struct{}{}
		<-release
		running.Add(-1)
		return bus.Out{}, nil
	}
	h := limit(2, next)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := h(context.Background(), alertOf("x"), nil)
			errs <- err
		}()
	}
	<-entered
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := h(ctx, alertOf("y"), nil)
	require.ErrorIs(t, err, context.Canceled, "the third waits for a slot and gives up with its context")
	close(release)
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	require.Equal(t, int32(2), peak.Load())
}
