package service_test

import (
	"context"
	"errors"
	"testing"

	"agentk/platform/service"

	"github.com/stretchr/testify/require"
)

// fakeRouter consumes (closes running) unless fail is set, then returns
// result once ctx ends; with fail it returns fail at once.
type fakeRouter struct {
	running chan struct{}
	fail    error
	result  error
}

func (f *fakeRouter) Running() chan struct{} { return f.running }

func (f *fakeRouter) Run(ctx context.Context) error {
	if f.fail != nil {
		return f.fail
	}
	close(f.running)
	<-ctx.Done()
	return f.result
}

func TestConsume(t *testing.T) {
	t.Parallel()
	boom, stopped := errors.New("boom"), errors.New("stopped")
	cases := []struct {
		name      string
		router    *fakeRouter
		wantErr   error
		wantReady bool
	}{
		{name: "consumes, then stops with ctx", router: &fakeRouter{running: make(chan struct{})}, wantReady: true},
		{name: "consumes, then fails", router: &fakeRouter{running: make(chan struct{}), result: stopped}, wantErr: stopped, wantReady: true},
		{name: "fails before it consumes", router: &fakeRouter{running: make(chan struct{}), fail: boom}, wantErr: boom},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var ready, started bool
			d := service.Deps{Ready: func() { ready = true; cancel() }}
			err := service.Consume(ctx, d, tc.router, func() { started = true })
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.NoError(t, err)
			}
			require.Equal(t, tc.wantReady, ready, "ready only once the router consumes")
			require.Equal(t, tc.wantReady, started)
		})
	}
}

func TestMarkReadyToleratesNil(t *testing.T) {
	t.Parallel()
	require.NotPanics(t, func() { service.Deps{}.MarkReady() })
}
