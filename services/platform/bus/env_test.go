package bus

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"agentk/platform/config"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

func TestConfigFromEnv(t *testing.T) {
	env := config.New(func(string) string { return "" })
	c := ConfigFromEnv(env)
	require.NoError(t, env.Err())
	require.Equal(t, 30*time.Second, c.AckWait)
	require.Equal(t, 5, c.MaxDeliver)

	vars := map[string]string{EnvAckWait: "3s", EnvMaxDeliver: "7"}
	env = config.New(func(k string) string { return vars[k] })
	c = ConfigFromEnv(env)
	require.NoError(t, env.Err())
	require.Equal(t, 3*time.Second, c.AckWait)
	require.Equal(t, 7, c.MaxDeliver)

	vars = map[string]string{EnvAckWait: "10ms", EnvMaxDeliver: "0"}
	env = config.New(func(k string) string { return vars[k] })
	ConfigFromEnv(env)
	require.ErrorContains(t, env.Err(), EnvAckWait)
	require.ErrorContains(t, env.Err(), EnvMaxDeliver)
}

func TestTransient(t *testing.T) {
	for _, err := range []error{
		nats.ErrNoResponders, jetstream.ErrNoStreamResponse, context.DeadlineExceeded, nats.ErrTimeout,
		fmt.Errorf("wrapped: %w", nats.ErrNoResponders),
		&jetstream.APIError{Code: 503, Description: "JetStream system temporarily unavailable"},
	} {
		require.True(t, transient(err), "%v", err)
	}
	for _, err := range []error{
		errors.New("boom"), nats.ErrConnectionClosed,
		&jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence},
	} {
		require.False(t, transient(err), "%v", err)
	}
}
