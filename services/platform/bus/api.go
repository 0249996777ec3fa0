// Package bus is the agentk message fabric: JetStream streams created explicitly
// at start-up, Watermill routers with durable, manually acked consumers, retries
// with backoff, a dead-letter subject, Nats-Msg-Id de-duplication, W3C
// traceparent in metadata, core-NATS request/reply for tool calls, and KV buckets.
//
// Services see only this API; they never import watermill or nats.go directly
// except for jetstream.KeyValue.
//
// NOTE(coordination): signatures in this file are the contract between the
// services and the bus; the implementation is being written behind them.
package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"agentk/contracts/envelope"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

var (
	// ErrPermanent marks a handler error that redelivery cannot fix: the message
	// goes to the dead-letter subject and is acked.
	ErrPermanent = errors.New("bus: permanent")
	// ErrNoResponders is returned by Request when nothing serves the subject.
	ErrNoResponders = errors.New("bus: no responders")
)

// Permanent wraps err so the router dead-letters the message instead of
// redelivering it.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

// IsPermanent reports whether err was wrapped by Permanent.
func IsPermanent(err error) bool { return errors.Is(err, ErrPermanent) }

type permanentError struct{ err error }

func (e *permanentError) Error() string   { return e.err.Error() }
func (e *permanentError) Unwrap() []error { return []error{ErrPermanent, e.err} }

// Config says how one service connects.
type Config struct {
	// URL of the NATS server (AGENTK_NATS_URL).
	URL string
	// Name is the service's role (envelope.Role*); it names the connection.
	Name string
	// Seed is the service's nkey seed: it authenticates to NATS as an nkey user.
	Seed []byte
	// AckWait is how long JetStream waits for an ack before redelivering.
	AckWait time.Duration
	// MaxDeliver is how many deliveries before a message is dead-lettered.
	MaxDeliver int
	Logger     *slog.Logger

	// Fields below are optional; zero values take the defaults of
	// (Config).withDefaults.

	// Retries is how many times the router retries a transient failure in
	// process, with backoff, before it nacks the delivery (default 2).
	Retries int
	// RetryInterval is the first in-process retry delay (default 100 ms).
	RetryInterval time.Duration
	// RedeliveryDelay is the first nack delay; it doubles per delivery up to
	// MaxRedeliveryDelay (defaults 1 s and 1 min).
	RedeliveryDelay    time.Duration
	MaxRedeliveryDelay time.Duration
	// MaxAckPending bounds unacknowledged deliveries per durable consumer
	// across all instances (default 64).
	MaxAckPending int
	// ShutdownTimeout bounds how long closing a router waits for in-flight
	// handlers before abandoning them unacked (default 30 s).
	ShutdownTimeout time.Duration
	// PublishTimeout bounds each JetStream publish when the caller's context
	// has no earlier deadline (default 10 s).
	PublishTimeout time.Duration
	// ConnectTimeout bounds the first connection (default: until ctx is done).
	ConnectTimeout time.Duration
	// Standalone says the server is one standalone server, no cluster and
	// no leaf node (fabric.StartEmbedded's own sets it): every stream has
	// one replica, and KeyValue hands nats.go's bucket without asking for
	// the stream's configuration again. Never set it for a server reached
	// over the network: a leaf node may carry a cluster's streams.
	Standalone bool
}

// Message is one delivery handed to a handler. Envelope is parsed, not
// verified: the handler verifies it against its keyring.
type Message struct {
	Subject  string
	Data     []byte
	Envelope envelope.Envelope
	// Metadata holds headers (lowercase keys), including traceparent.
	Metadata map[string]string
	// Delivery counts deliveries, 1 on the first. A handler retried in
	// process sees the same count again.
	Delivery int
	// Sequence is the message's stream sequence: the same for every delivery
	// and retry of one message, different for a copy published again.
	Sequence uint64
}

// Open verifies the message's envelope, parsed once by the router, against
// kr as envelope.Keyring.Open does and decodes its payload into v, without
// parsing the message's bytes again.
// A message built without its envelope (Data only) is parsed here.
func (m Message) Open(kr *envelope.Keyring, subject string, now time.Time, v any) error {
	if m.Envelope.Sig == nil {
		env, err := envelope.Parse(m.Data)
		if err != nil {
			return err
		}
		m.Envelope = env
	}
	if err := kr.VerifyProduced(m.Envelope, subject, now); err != nil {
		return err
	}
	if err := json.Unmarshal(m.Envelope.Payload, v); err != nil {
		return fmt.Errorf("%w: payload of %s: %v", envelope.ErrMalformed, m.Envelope.Subject, err)
	}
	return nil
}

// Out is a message a handler asks the router to publish before it acks the input.
type Out struct {
	Envelope envelope.Envelope
	// MsgID becomes Nats-Msg-Id: JetStream drops a second publish with the same id.
	MsgID string
	// Value, when set, is what Envelope's payload was sealed from, for the
	// handler's own wrappers (telemetry) to read without decoding the
	// payload again. It never travels.
	Value any
}

// HandlerFunc handles one message and returns what to publish. A non-nil error
// nacks (redelivered with backoff) unless it is Permanent.
type HandlerFunc func(ctx context.Context, m Message) ([]Out, error)

// Conn is one service's connection to the fabric.
type Conn struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	cfg    Config
	log    *slog.Logger
	closed chan struct{}
}

// NATS returns the underlying connection.
func (c *Conn) NATS() *nats.Conn { return c.nc }

// JetStream returns the JetStream context.
func (c *Conn) JetStream() jetstream.JetStream { return c.js }
