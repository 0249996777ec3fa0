package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"agentk/contracts/envelope"
	"agentk/platform/telemetry/role"
	"agentk/platform/topology"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ErrHandler is returned by Run when a handler was registered wrongly (bad or
// duplicate name, subject without a stream).
var ErrHandler = errors.New("bus: handler")

// ErrStopped is returned by Run when the router stopped while its context
// was still live: the service no longer consumes, and whoever runs it must
// say so and restart it.
var ErrStopped = errors.New("bus: router stopped")

// Router runs a service's handlers: one durable JetStream consumer per handler,
// Watermill's router around them. For each delivery the middleware, outermost
// first, is: correlation id, poison queue (Permanent errors and the
// MaxDeliver-th failure go to agentk.dlq.<subject> and are acked), retry with
// backoff for transient errors, recoverer (a panic is a transient error). The
// handler's outputs are published, and acknowledged by JetStream, before the
// input is acked; an error after in-process retries nacks the input with a
// delay that doubles per delivery.
type Router struct {
	c     *Conn
	wr    *message.Router
	log   *slog.Logger
	mu    sync.Mutex
	names map[string]bool
	errs  []error
}

// NewRouter returns a router on c. logger may be nil (the connection's logger
// is used). It returns an error only if Watermill rejects its configuration.
func (c *Conn) NewRouter(logger *slog.Logger) (*Router, error) {
	if logger == nil {
		logger = c.log
	}
	wr, err := message.NewRouter(message.RouterConfig{CloseTimeout: c.cfg.ShutdownTimeout + c.cfg.PublishTimeout},
		watermill.NewSlogLoggerWithLevelMapping(logger.With("component", "router"), map[slog.Level]slog.Level{
			slog.LevelInfo: slog.LevelDebug,
		}))
	if err != nil {
		return nil, fmt.Errorf("bus: router: %w", err)
	}
	return &Router{c: c, wr: wr, log: logger, names: map[string]bool{}}, nil
}

// HandleOption configures one handler of a Router.
type HandleOption func(*handleOptions)

type handleOptions struct {
	concurrency int
	untilDone   bool
}

// Concurrency lets up to n deliveries of the handler run at once in this
// process (default 1: the next message is pulled once the last is acked).
// Replicas of a service share the handler's durable consumer, so each holds
// up to n of its messages; MaxAckPending bounds them all together.
func Concurrency(n int) HandleOption { return func(o *handleOptions) { o.concurrency = n } }

// UntilAnswered is for a handler that answers every message itself once
// retrying can no longer help, as the deployer refuses an approval whose
// decision expired: a transient failure is redelivered (nak delay doubling
// up to MaxRedeliveryDelay) for as many deliveries as it takes, never
// dead-lettered at MaxDeliver. An approval that cannot be acted on yet (no
// quorum, a stalled consumer, a bucket without a leader) is then acted on
// once the bus is back, or answered as expired; never dropped where no human
// looks. Permanent and content errors are still dead-lettered at once.
func UntilAnswered() HandleOption { return func(o *handleOptions) { o.untilDone = true } }

// Handle registers h for subject under name. name is the durable consumer
// name and must stay stable across releases: a new name starts a new consumer
// that re-reads the whole stream. Registration errors are returned by Run.
func (r *Router) Handle(name, subject string, h HandlerFunc, opts ...HandleOption) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := validName(name); err != nil {
		r.errs = append(r.errs, fmt.Errorf("%w: %w", ErrHandler, err))
		return
	}
	if r.names[name] {
		r.errs = append(r.errs, fmt.Errorf("%w: duplicate handler name %q", ErrHandler, name))
		return
	}
	if _, ok := topology.StreamFor(subject); !ok {
		r.errs = append(r.errs, fmt.Errorf("%w: %s: %w: %q", ErrHandler, name, ErrUnknownSubject, subject))
		return
	}
	r.names[name] = true
	var o handleOptions
	for _, opt := range opts {
		opt(&o)
	}
	sub := newSubscriber(r.c.js, name, r.c.cfg, r.log, o.concurrency)
	wh := r.wr.AddConsumerHandler(name, subject, sub, r.adapt(name, h))
	wh.AddMiddleware(
		correlation,
		r.poison(name, o.untilDone),
		middleware.Retry{
			MaxRetries:          r.c.cfg.Retries,
			InitialInterval:     r.c.cfg.RetryInterval,
			MaxInterval:         r.c.cfg.RetryInterval * 16,
			Multiplier:          2,
			RandomizationFactor: 0.2,
			ResetContextOnRetry: true,
			ShouldRetry:         func(p middleware.RetryParams) bool { return !IsPermanent(p.Err) && !IsContent(p.Err) },
		}.Middleware,
		middleware.Recoverer,
	)
}

func validName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("name %q must be 1 to 64 characters", name)
	}
	for _, ch := range name {
		ok := ch == '-' || ch == '_' || ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
		if !ok {
			return fmt.Errorf("name %q may hold only letters, digits, '-' and '_'", name)
		}
	}
	return nil
}

// Run creates the durable consumers and runs the handlers until ctx is done,
// then stops pulling, lets in-flight handlers finish and ack (bounded by
// ShutdownTimeout) and returns. It returns ErrHandler for a registration
// mistake, ErrConsumer when a consumer cannot be created (for example when the
// role may not consume that stream), nil after a clean stop.
//
// Running() is closed once every consumer exists. It is never closed if Run
// fails, so whoever waits must select on both Running() and Run's error.
func (r *Router) Run(ctx context.Context) error {
	r.mu.Lock()
	errs := errors.Join(r.errs...)
	r.mu.Unlock()
	if errs != nil {
		return errs
	}
	errc := make(chan error, 1)
	go func() { errc <- r.wr.Run(context.WithoutCancel(ctx)) }()
	select {
	case err := <-errc:
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConsumer, err)
		}
		if ctx.Err() == nil {
			// Every handler stopped on its own (its consumer could not be
			// resumed, the connection closed): the service is deaf.
			return fmt.Errorf("%w: every handler stopped", ErrStopped)
		}
		return nil
	case <-ctx.Done():
	}
	cerr := r.wr.Close()
	if err := <-errc; err != nil {
		return fmt.Errorf("%w: %w", ErrConsumer, err)
	}
	if cerr != nil {
		return fmt.Errorf("bus: router close: %w", cerr)
	}
	return nil
}

// Running is closed when every handler's consumer exists and pulls. See Run.
func (r *Router) Running() chan struct{} { return r.wr.Running() }

// Close stops the router as cancelling Run's context does.
func (r *Router) Close() error { return r.wr.Close() }

// adapt turns a HandlerFunc into a Watermill handler that publishes the
// outputs itself, durably, before returning nil (and so before the ack).
func (r *Router) adapt(name string, h HandlerFunc) message.NoPublishHandlerFunc {
	tracer := otel.Tracer("agentk/platform/bus")
	return func(wm *message.Message) error {
		d := deliveryFrom(wm.Context())
		ctx := role.With(extract(wm.Context(), wm.Metadata), r.c.cfg.Name)
		ctx, span := tracer.Start(ctx, "consume "+d.subject, trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithAttributes(
				attribute.String("messaging.system", "nats"),
				attribute.String("messaging.destination.name", d.subject),
				attribute.String("messaging.consumer.group.name", name),
				attribute.Int("messaging.nats.delivery", d.count),
			))
		defer span.End()
		env, err := envelope.Parse(wm.Payload)
		if err != nil {
			span.SetStatus(codes.Error, "malformed envelope")
			return Permanent(err)
		}
		outs, err := h(ctx, Message{Subject: d.subject, Data: wm.Payload, Envelope: env, Metadata: wm.Metadata, Delivery: d.count, Sequence: d.streamSeq})
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			return err
		}
		for _, o := range outs {
			if err := r.c.Publish(ctx, o.Envelope.Subject, o, nil); err != nil {
				if errors.Is(err, ErrUnknownSubject) || IsContent(err) {
					return Permanent(err)
				}
				return err
			}
		}
		return nil
	}
}

// correlation makes sure every delivery carries a correlation id: the
// incoming one, else the message's Nats-Msg-Id, else a new one.
func correlation(h message.HandlerFunc) message.HandlerFunc {
	return func(wm *message.Message) ([]*message.Message, error) {
		if wm.Metadata.Get(HeaderCorrelationID) == "" {
			id := wm.Metadata.Get("nats-msg-id")
			if id == "" {
				id = uuid.NewString()
			}
			wm.Metadata.Set(HeaderCorrelationID, id)
		}
		return h(wm)
	}
}

// poison dead-letters Permanent errors at once and transient ones on the
// MaxDeliver-th delivery (never, for a handler registered UntilAnswered),
// then acks. If the dead-letter publish itself fails
// the input is nacked, so nothing is dropped.
func (r *Router) poison(name string, untilAnswered bool) message.HandlerMiddleware {
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(wm *message.Message) ([]*message.Message, error) {
			out, err := h(wm)
			if err == nil {
				return out, nil
			}
			d := deliveryFrom(wm.Context())
			reason := ""
			switch {
			case IsPermanent(err):
				reason = "permanent"
			case IsContent(err):
				reason = "content"
			case d.count >= r.c.cfg.MaxDeliver && !untilAnswered:
				reason = "max_deliver"
			default:
				r.log.Warn("handler failed; redelivering", "handler", name, "subject", d.subject, "delivery", d.count, "err", err)
				return nil, err
			}
			if perr := r.deadLetter(wm, name, d, reason, err); perr != nil {
				r.log.Error("dead-letter publish failed; redelivering", "handler", name, "subject", d.subject, "err", perr)
				return nil, errors.Join(err, perr)
			}
			r.log.Warn("message dead-lettered", "handler", name, "subject", d.subject, "reason", reason, "delivery", d.count, "err", err)
			return nil, nil
		}
	}
}

func (r *Router) deadLetter(wm *message.Message, name string, d delivery, reason string, cause error) error {
	msg := nats.NewMsg(topology.DLQSubject(d.subject))
	msg.Data = wm.Payload
	for k, v := range wm.Metadata {
		if k == "nats-msg-id" || k == "nats-expected-stream" {
			continue
		}
		msg.Header[k] = []string{v}
	}
	msg.Header[HeaderDLQError] = []string{truncate(cause.Error(), maxDLQErrorBytes)}
	msg.Header[HeaderDLQReason] = []string{reason}
	msg.Header[HeaderDLQHandler] = []string{name}
	msg.Header[HeaderDLQDeliveries] = []string{strconv.Itoa(d.count)}
	msg.Header[HeaderDLQStreamSeq] = []string{strconv.FormatUint(d.streamSeq, 10)}
	id := fmt.Sprintf("dlq.%s.%s.%d", name, d.stream, d.streamSeq)
	return r.c.publishMsg(context.WithoutCancel(wm.Context()), topology.DLQStream, msg, id)
}
