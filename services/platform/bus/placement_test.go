package bus_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"agentk/platform/bus"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// refusing is a JetStream whose creations fail with err for the first n
// calls; every other method is unused here.
type refusing struct {
	jetstream.JetStream
	err   error
	n     int64
	calls atomic.Int64
}

func (r *refusing) fail() error {
	if r.calls.Add(1) <= r.n {
		return r.err
	}
	return nil
}

func (r *refusing) CreateStream(context.Context, jetstream.StreamConfig) (jetstream.Stream, error) {
	return nil, r.fail()
}

func (r *refusing) CreateKeyValue(context.Context, jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	return nil, r.fail()
}

// TestProvisionWaitsForTheClusterToForm holds a CI failure of the in-process
// cluster test: the three nodes had elected their meta leader, one was not
// yet counted online, and provisioning streams of three replicas failed with
// "no suitable peers for placement" (JSClusterNoPeers, 10005). That refusal
// is retried until the deadline; any other fails at once.
func TestProvisionWaitsForTheClusterToForm(t *testing.T) {
	noPeers := &jetstream.APIError{Code: 400, ErrorCode: 10005, Description: "no suitable peers for placement, peer offline"}
	badRequest := &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeBadRequest, Description: "bad request"}
	tests := []struct {
		name      string
		err       error
		n         int64
		deadline  time.Duration
		wantErr   bool
		wantCalls func(total int64) bool
	}{
		{"a cluster still forming is waited for", noPeers, 3, time.Minute, false, func(c int64) bool { return c > 3 }},
		{"another refusal fails at once", badRequest, 1, time.Minute, true, func(c int64) bool { return c > 1 }},
		{"a cluster that never forms fails at the deadline", noPeers, 1 << 40, 600 * time.Millisecond, true, func(c int64) bool { return c >= 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			js := &refusing{err: tt.err, n: tt.n}
			ctx, cancel := context.WithTimeout(context.Background(), tt.deadline)
			defer cancel()
			err := bus.Provision(ctx, js, bus.ProvisionConfig{Replicas: 3})
			if tt.wantErr {
				require.ErrorIs(t, err, bus.ErrProvision)
				var api *jetstream.APIError
				require.True(t, errors.As(err, &api))
			} else {
				require.NoError(t, err)
			}
			require.True(t, tt.wantCalls(js.calls.Load()), "calls: %d", js.calls.Load())
		})
	}
}
