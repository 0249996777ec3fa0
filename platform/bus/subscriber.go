package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"agentk/platform/topology"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrConsumer is returned by a router when its durable consumer cannot be
// created or consumed.
var ErrConsumer = errors.New("bus: consumer")

// subscriber is a Watermill Subscriber over one durable JetStream pull
// consumer. It exists instead of watermill-nats/v2's jetstream.Subscriber
// because the router's guarantees need four things that one does not do:
//
//   - the ack is sent, and confirmed by the server (DoubleAck), only after the
//     handler returned and the router published its outputs; a closed or
//     crashed process leaves the message unacked, so it is redelivered;
//   - closing stops pulling, lets in-flight handlers finish and ack (bounded by
//     ShutdownTimeout), and only then abandons what is left;
//   - a handler slower than AckWait keeps its delivery with InProgress
//     heartbeats instead of being delivered twice at once;
//   - it never drains the service's shared connection on close.
//
// One subscriber serves one handler (one durable name).
type subscriber struct {
	js      jetstream.JetStream
	durable string
	cfg     Config
	log     *slog.Logger

	mu       sync.Mutex
	closing  bool
	inflight sync.WaitGroup
	stop     chan struct{} // closed by Close: stop pulling
	abort    chan struct{} // closed when the grace period ended
	once     sync.Once
	abortOne sync.Once
	done     []chan struct{}
}

func newSubscriber(js jetstream.JetStream, durable string, cfg Config, log *slog.Logger) *subscriber {
	return &subscriber{js: js, durable: durable, cfg: cfg, log: log, stop: make(chan struct{}), abort: make(chan struct{})}
}

// delivery is what the bus knows about one delivery; it travels in the
// Watermill message's context.
type delivery struct {
	subject   string
	stream    string
	streamSeq uint64
	count     int
	msgID     string
}

type deliveryKey struct{}

func deliveryFrom(ctx context.Context) delivery {
	d, _ := ctx.Value(deliveryKey{}).(delivery)
	return d
}

// consumerConfig is the durable consumer of one handler. MaxDeliver is
// unlimited on the server: the router itself dead-letters at cfg.MaxDeliver,
// so JetStream never drops a message silently when the DLQ publish fails.
func (s *subscriber) consumerConfig(subject string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       s.durable,
		Description:   "agentk handler " + s.durable,
		FilterSubject: subject,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       s.cfg.AckWait,
		MaxDeliver:    -1,
		MaxAckPending: s.cfg.MaxAckPending,
	}
}

// Subscribe creates or updates the durable consumer for topic on its stream
// and starts pulling one message at a time (a message waiting in a client
// buffer would burn its AckWait). It returns ErrUnknownSubject or ErrConsumer.
func (s *subscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	stream, ok := topology.StreamFor(topic)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownSubject, topic)
	}
	cons, err := s.js.CreateOrUpdateConsumer(ctx, stream, s.consumerConfig(topic))
	if err != nil {
		return nil, fmt.Errorf("%w: %s on %s: %w", ErrConsumer, s.durable, stream, err)
	}
	out := make(chan *message.Message)
	// The router cancels ctx as soon as it starts closing; handlers must be
	// able to finish, so deliveries get a context that only abort cancels.
	base := context.WithoutCancel(ctx)
	cc, err := cons.Consume(func(m jetstream.Msg) { s.handle(base, m, out) },
		jetstream.PullMaxMessages(1),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			s.log.Warn("consume error", "handler", s.durable, "err", err)
		}))
	if err != nil {
		return nil, fmt.Errorf("%w: consume %s: %w", ErrConsumer, s.durable, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.done = append(s.done, done)
	s.mu.Unlock()
	go func() {
		defer close(done)
		select {
		case <-s.stop:
		case <-ctx.Done():
			s.beginClose()
		}
		cc.Stop()
		s.inflight.Wait()
		close(out)
	}()
	return out, nil
}

// enter registers an in-flight delivery unless the subscriber is closing.
func (s *subscriber) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.inflight.Add(1)
	return true
}

func (s *subscriber) handle(base context.Context, jm jetstream.Msg, out chan<- *message.Message) {
	if !s.enter() {
		// Not ours any more: hand it back at once rather than after AckWait.
		_ = jm.Nak()
		return
	}
	defer s.inflight.Done()
	meta, err := jm.Metadata()
	if err != nil {
		s.log.Error("delivery without metadata", "handler", s.durable, "err", err)
		_ = jm.Term()
		return
	}
	md := metadata(jm.Headers())
	d := delivery{
		subject: jm.Subject(), stream: meta.Stream, streamSeq: meta.Sequence.Stream,
		count: int(meta.NumDelivered), msgID: md["nats-msg-id"],
	}
	wm := message.NewMessage(fmt.Sprintf("%s.%d.%d", meta.Stream, meta.Sequence.Stream, meta.NumDelivered), jm.Data())
	wm.Metadata = md
	ctx, cancel := context.WithCancel(context.WithValue(base, deliveryKey{}, d))
	defer cancel()
	wm.SetContext(ctx)

	select {
	case out <- wm:
	case <-s.stop:
		_ = jm.Nak()
		return
	}
	beat := time.NewTicker(max(s.cfg.AckWait/3, 10*time.Millisecond))
	defer beat.Stop()
	for {
		select {
		case <-wm.Acked():
			actx, acancel := context.WithTimeout(context.WithoutCancel(base), s.cfg.PublishTimeout)
			err := jm.DoubleAck(actx)
			acancel()
			if err != nil {
				// The outputs are stored; a redelivery republishes them under
				// the same Nats-Msg-Id and JetStream drops the copies.
				s.log.Warn("ack not confirmed; the message will be redelivered", "handler", s.durable, "subject", d.subject, "stream_seq", d.streamSeq, "err", err)
			}
			return
		case <-wm.Nacked():
			delay := redeliveryDelay(s.cfg, d.count)
			if err := jm.NakWithDelay(delay); err != nil {
				s.log.Warn("nak failed; the message will be redelivered after ack wait", "handler", s.durable, "err", err)
			}
			return
		case <-beat.C:
			if err := jm.InProgress(); err != nil {
				s.log.Warn("in-progress heartbeat failed", "handler", s.durable, "err", err)
			}
		case <-s.abort:
			// Grace period over: leave the message unacked; JetStream
			// redelivers it after AckWait.
			s.log.Warn("shutdown abandoned an in-flight message", "handler", s.durable, "subject", d.subject, "stream_seq", d.streamSeq)
			return
		}
	}
}

// redeliveryDelay is the nak delay after delivery number n failed.
func redeliveryDelay(cfg Config, n int) time.Duration {
	d := cfg.RedeliveryDelay
	for i := 1; i < n && d < cfg.MaxRedeliveryDelay; i++ {
		d *= 2
	}
	return min(d, cfg.MaxRedeliveryDelay)
}

func (s *subscriber) beginClose() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		close(s.stop)
	})
}

// Close stops pulling, waits up to ShutdownTimeout for in-flight handlers to
// finish and ack, then abandons the rest unacked. It never returns an error
// other than nil: abandoned messages are redelivered, not lost.
func (s *subscriber) Close() error {
	s.beginClose()
	finished := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(finished)
	}()
	t := time.NewTimer(s.cfg.ShutdownTimeout)
	defer t.Stop()
	select {
	case <-finished:
	case <-t.C:
		s.abortOne.Do(func() { close(s.abort) })
		<-finished
	}
	s.mu.Lock()
	done := append([]chan struct{}(nil), s.done...)
	s.mu.Unlock()
	for _, d := range done {
		<-d
	}
	return nil
}
