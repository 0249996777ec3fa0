package rollback

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// unreachable reports whether err says a store could not be reached at all
// (NATS restarting, a stream leader election, a timeout), as opposed to a
// value that was read and failed verification. An unreachable store is no
// answer: the approval is redelivered and judged again once it is back, so a
// bus blip does not use up a human's approval. A value that is there but
// cannot be verified still refuses (fail closed).
func unreachable(err error) bool {
	for _, e := range []error{
		context.DeadlineExceeded, context.Canceled,
		nats.ErrTimeout, nats.ErrConnectionClosed, nats.ErrConnectionDraining, nats.ErrNoResponders,
		nats.ErrDisconnected, nats.ErrConnectionReconnecting,
		jetstream.ErrNoHeartbeat, jetstream.ErrJetStreamNotEnabled,
	} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
