package bus

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"agentk/contracts/envelope"
	"agentk/platform/telemetry/role"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// More errors.
var (
	// ErrRequest is returned by Request when the request could not be sent or
	// no reply came before ctx ended.
	ErrRequest = errors.New("bus: request")
	// ErrRemote is returned by Request when the server's handler failed; the
	// text is the handler's error. It is also Permanent when the handler's
	// error was.
	ErrRemote = errors.New("bus: remote error")
	// ErrServe is returned by Serve when the subscription cannot be made.
	ErrServe = errors.New("bus: serve")
)

// ServeFunc answers one request.
type ServeFunc func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error)

// Request sends env on subject over core NATS and waits for the reply until
// ctx ends. The trace context and correlation id of ctx travel in the headers.
// It returns ErrNoResponders when nothing serves subject, ErrRemote (and
// Permanent when the remote error was) when the handler failed, ErrRequest
// for a timeout or transport error, envelope.ErrMalformed for a bad reply.
func (c *Conn) Request(ctx context.Context, subject string, env envelope.Envelope) (envelope.Envelope, error) {
	ctx, span := otel.Tracer("agentk/platform/bus").Start(role.With(ctx, c.cfg.Name), "request "+subject,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(messagingAttrs(subject)...))
	defer span.End()
	msg := nats.NewMsg(subject)
	msg.Data = env.Marshal()
	setHeaders(ctx, msg.Header, nil)
	resp, err := c.nc.RequestMsgWithContext(ctx, msg)
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		if errors.Is(err, nats.ErrNoResponders) {
			return envelope.Envelope{}, fmt.Errorf("%w: %s", ErrNoResponders, subject)
		}
		return envelope.Envelope{}, fmt.Errorf("%w: %s: %w", ErrRequest, subject, err)
	}
	if text := resp.Header.Get(HeaderError); text != "" {
		span.SetStatus(codes.Error, text)
		err := fmt.Errorf("%w: %s: %s", ErrRemote, subject, text)
		if resp.Header.Get(HeaderErrorPermanent) == "true" {
			err = Permanent(err)
		}
		return envelope.Envelope{}, err
	}
	out, err := envelope.Parse(resp.Data)
	if err != nil {
		return envelope.Envelope{}, fmt.Errorf("bus: reply on %s: %w", subject, err)
	}
	return out, nil
}

// answer runs h on one request and sends its reply (or its error, in the
// agentk-error header).
func (c *Conn) answer(ctx context.Context, tracer trace.Tracer, subject string, m *nats.Msg, h ServeFunc) {
	md := metadata(m.Header)
	rctx, span := tracer.Start(extract(ctx, md), "serve "+subject, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(messagingAttrs(subject)...))
	defer span.End()
	reply := nats.NewMsg(m.Reply)
	env, err := envelope.Parse(m.Data)
	if err != nil {
		err = Permanent(err)
	} else {
		env, err = callServe(rctx, h, env, md)
	}
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		reply.Header.Set(HeaderError, truncate(err.Error(), maxDLQErrorBytes))
		if IsPermanent(err) {
			reply.Header.Set(HeaderErrorPermanent, "true")
		}
	} else {
		reply.Data = env.Marshal()
	}
	if m.Reply == "" {
		return
	}
	if err := c.nc.PublishMsg(reply); err != nil {
		c.log.Warn("reply failed", "subject", subject, "err", err)
		if IsContent(err) {
			// The reply itself is too large for the server: tell the
			// requester at once, permanently, rather than let it
			// time out and ask again for the same answer.
			refusal := nats.NewMsg(m.Reply)
			refusal.Header.Set(HeaderError, truncate("bus: reply refused: "+err.Error(), maxDLQErrorBytes))
			refusal.Header.Set(HeaderErrorPermanent, "true")
			_ = c.nc.PublishMsg(refusal)
		}
	}
}

// Serve answers requests on subject in queue group queue (several instances
// share the load) until stop is called or ctx ends. Each request runs in its
// own goroutine, at most 32 at once; h's error goes back to the requester in
// the agentk-error header. stop unsubscribes, waits for running handlers and
// returns the unsubscribe error. Serve returns ErrServe if the subscription
// fails (for example when the role may not subscribe to subject).
func (c *Conn) Serve(ctx context.Context, subject, queue string, h func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error)) (stop func() error, err error) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	base := context.WithoutCancel(ctx)
	handlerCtx, cancel := context.WithCancel(role.With(base, c.cfg.Name))
	tracer := otel.Tracer("agentk/platform/bus")
	sub, err := c.nc.QueueSubscribe(subject, queue, func(m *nats.Msg) {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c.answer(handlerCtx, tracer, subject, m, h)
		}()
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%w: %s: %w", ErrServe, subject, err)
	}
	// A permission violation on subscribe is reported asynchronously; a
	// flush round trip surfaces it here instead of leaving a deaf server.
	if err := c.nc.FlushTimeout(c.cfg.PublishTimeout); err != nil {
		_ = sub.Unsubscribe()
		cancel()
		return nil, fmt.Errorf("%w: %s: %w", ErrServe, subject, err)
	}
	if err := c.nc.LastError(); err != nil && isPermissionErr(err) {
		_ = sub.Unsubscribe()
		cancel()
		return nil, fmt.Errorf("%w: %s: %w", ErrServe, subject, err)
	}
	var once sync.Once
	var uerr error
	stop = func() error {
		once.Do(func() {
			uerr = sub.Unsubscribe()
			if errors.Is(uerr, nats.ErrConnectionClosed) || errors.Is(uerr, nats.ErrBadSubscription) {
				uerr = nil
			}
			if uerr == nil && !c.nc.IsClosed() {
				// The server knows the subscription is gone once stop returns.
				_ = c.nc.FlushTimeout(c.cfg.PublishTimeout)
			}
			wg.Wait()
			cancel()
		})
		return uerr
	}
	go func() {
		select {
		case <-ctx.Done():
			_ = stop()
		case <-c.closed:
		}
	}()
	return stop, nil
}

func callServe(ctx context.Context, h ServeFunc, env envelope.Envelope, md map[string]string) (out envelope.Envelope, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("bus: serve handler panicked: %v", p)
		}
	}()
	return h(ctx, env, md)
}

func isPermissionErr(err error) bool { return errors.Is(err, nats.ErrPermissionViolation) }
