package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
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
// One subscriber serves one handler (one durable name). It holds one
// delivery at a time, or up to cap(slots) when the handler was registered
// with Concurrency.
type subscriber struct {
	js      jetstream.JetStream
	durable string
	cfg     Config
	log     *slog.Logger
	slots   chan struct{} // nil: one delivery at a time, in the pull's goroutine

	missed   atomic.Int64 // pulls in a row without a heartbeat
	lastMiss atomic.Int64 // unix nanoseconds of the last one
	mu       sync.Mutex
	closing  bool
	inflight sync.WaitGroup
	stop     chan struct{} // closed by Close: stop pulling
	abort    chan struct{} // closed when the grace period ended
	once     sync.Once
	abortOne sync.Once
	done     []chan struct{}
}

func newSubscriber(js jetstream.JetStream, durable string, cfg Config, log *slog.Logger, concurrency int) *subscriber {
	s := &subscriber{js: js, durable: durable, cfg: cfg, log: log, stop: make(chan struct{}), abort: make(chan struct{})}
	if concurrency > 1 {
		s.slots = make(chan struct{}, concurrency)
	}
	return s
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
	cc, err := s.consume(cons, base, out)
	if err != nil {
		return nil, fmt.Errorf("%w: consume %s: %w", ErrConsumer, s.durable, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	s.done = append(s.done, done)
	s.mu.Unlock()
	go func() {
		defer close(done)
		for running := true; running; {
			select {
			case <-s.stop:
				running = false
			case <-ctx.Done():
				s.beginClose()
				running = false
			case <-cc.Closed():
				// Consuming ended without Close: the consumer was deleted
				// (or lost by the cluster), or the connection closed. Create
				// it again and go on pulling rather than go silently deaf.
				next, ok := s.resume(ctx, stream, topic, base, out)
				if !ok {
					running = false
					break
				}
				cc = next
			}
		}
		cc.Stop()
		s.inflight.Wait()
		close(out)
	}()
	return out, nil
}

// Pull requests are short and heartbeated: when the consumer's leader dies
// with a pull pending (a killed or partitioned node sends no "leadership
// change"), the client notices the missing heartbeats within two of them and
// pulls again from the new leader, instead of after the 30 s default expiry.
const (
	pullExpiry    = 5 * time.Second
	pullHeartbeat = time.Second
)

func (s *subscriber) consume(cons jetstream.Consumer, base context.Context, out chan<- *message.Message) (jetstream.ConsumeContext, error) {
	return cons.Consume(func(m jetstream.Msg) { s.dispatch(base, m, out) },
		jetstream.PullMaxMessages(1),
		jetstream.PullExpiry(pullExpiry),
		jetstream.PullHeartbeat(pullHeartbeat),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			s.log.Warn("consume error", "handler", s.durable, "err", err)
			if errors.Is(err, jetstream.ErrNoHeartbeat) {
				s.missedHeartbeat()
			}
		}))
}

// missedHeartbeat counts pulls in a row that got no heartbeat. The client
// pulls again after each, but when its server was cut off (a partition sends
// no FIN) the connection itself is dead and every pull vanishes until the
// client's own pings time out. After staleAfter of them the subscriber makes
// the connection reconnect to another server of the cluster.
func (s *subscriber) missedHeartbeat() {
	now := time.Now().UnixNano()
	if last := s.lastMiss.Swap(now); time.Duration(now-last) > 2*pullExpiry {
		s.missed.Store(0) // not in a row: pulls were answered in between
	}
	n := s.missed.Add(1)
	if n%staleAfter != 0 {
		return
	}
	nc := s.js.Conn()
	if nc == nil || !nc.IsConnected() {
		return
	}
	s.log.Warn("no heartbeat on several pulls in a row; reconnecting to another server", "handler", s.durable, "missed", n, "server", nc.ConnectedUrlRedacted())
	if err := nc.ForceReconnect(); err != nil {
		s.log.Warn("forced reconnect failed", "handler", s.durable, "err", err)
	}
}

const staleAfter = 3

// resume re-creates the durable consumer and consumes again, with capped
// backoff, until it works or the subscriber closes (ok false). A closed
// connection never comes back, so it gives up on that at once.
func (s *subscriber) resume(ctx context.Context, stream, topic string, base context.Context, out chan<- *message.Message) (jetstream.ConsumeContext, bool) {
	delay := backoff(250*time.Millisecond, 5*time.Second)
	for attempt := 1; ; attempt++ {
		if nc := s.js.Conn(); nc != nil && nc.IsClosed() {
			s.log.Warn("consuming stopped: connection closed", "handler", s.durable)
			return nil, false
		}
		actx, cancel := context.WithTimeout(ctx, max(s.cfg.PublishTimeout, time.Second))
		cons, err := s.js.CreateOrUpdateConsumer(actx, stream, s.consumerConfig(topic))
		cancel()
		if err == nil {
			cc, cerr := s.consume(cons, base, out)
			if cerr == nil {
				s.log.Warn("consumer re-created after consuming stopped", "handler", s.durable, "attempt", attempt)
				return cc, true
			}
			err = cerr
		}
		s.log.Warn("consumer not re-created yet", "handler", s.durable, "attempt", attempt, "err", err)
		t := time.NewTimer(delay(attempt))
		select {
		case <-s.stop:
			t.Stop()
			return nil, false
		case <-ctx.Done():
			t.Stop()
			s.beginClose()
			return nil, false
		case <-t.C:
		}
	}
}

// dispatch hands one pulled message to handle. Without slots it runs handle
// in the pull's goroutine: the next message is pulled once this one is
// acked. With slots it waits for a free one, then runs handle in its own
// goroutine: while every slot is taken the pull waits here, so at most one
// message waits in this process, kept alive with InProgress heartbeats
// rather than burning its AckWait (or going to another replica meanwhile).
func (s *subscriber) dispatch(base context.Context, m jetstream.Msg, out chan<- *message.Message) {
	if s.slots == nil {
		s.handle(base, m, out)
		return
	}
	beat := time.NewTicker(max(s.cfg.AckWait/3, 10*time.Millisecond))
	defer beat.Stop()
	for {
		select {
		case s.slots <- struct{}{}:
			go func() {
				defer func() { <-s.slots }()
				s.handle(base, m, out)
			}()
			return
		case <-beat.C:
			if err := m.InProgress(); err != nil {
				s.log.Warn("in-progress heartbeat failed", "handler", s.durable, "err", err)
			}
		case <-s.stop:
			_ = m.Nak()
			return
		}
	}
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
	s.missed.Store(0)
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
			if err := s.ack(base, jm); err != nil {
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

// ack confirms the delivery with DoubleAck. During a consumer leader
// election the ack can go unanswered or find no responder; it is retried,
// each attempt bounded, until PublishTimeout, so one election does not cost a
// whole AckWait and a second run of the handler. Acking twice is harmless.
func (s *subscriber) ack(base context.Context, jm jetstream.Msg) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(base), s.cfg.PublishTimeout)
	defer cancel()
	delay := backoff(100*time.Millisecond, time.Second)
	for attempt := 1; ; attempt++ {
		actx, acancel := context.WithTimeout(ctx, attemptTimeout(s.cfg))
		err := jm.DoubleAck(actx)
		acancel()
		if err == nil || !transient(err) {
			return err
		}
		t := time.NewTimer(delay(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
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
