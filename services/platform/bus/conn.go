package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"agentk/platform/telemetry/role"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// More errors.
var (
	// ErrConfig is returned by Connect for an unusable Config.
	ErrConfig = errors.New("bus: config")
	// ErrConnect is returned by Connect when no connection could be made
	// before the context ended.
	ErrConnect = errors.New("bus: connect")
	// ErrPublish is returned by Publish when the message was not stored.
	ErrPublish = errors.New("bus: publish")
	// ErrUnknownSubject is returned by Publish for a subject no stream stores.
	ErrUnknownSubject = errors.New("bus: subject has no stream")
	// ErrClosed is returned when the connection is closed.
	ErrClosed = errors.New("bus: connection closed")
)

func (c Config) withDefaults() Config {
	if c.AckWait <= 0 {
		c.AckWait = 30 * time.Second
	}
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = 5
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Retries < 0 {
		c.Retries = 0
	} else if c.Retries == 0 {
		c.Retries = 2
	}
	if c.RetryInterval <= 0 {
		c.RetryInterval = 100 * time.Millisecond
	}
	if c.RedeliveryDelay <= 0 {
		c.RedeliveryDelay = time.Second
	}
	if c.MaxRedeliveryDelay <= 0 {
		c.MaxRedeliveryDelay = time.Minute
	}
	if c.MaxAckPending <= 0 {
		c.MaxAckPending = 64
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 30 * time.Second
	}
	if c.PublishTimeout <= 0 {
		c.PublishTimeout = 10 * time.Second
	}
	return c
}

func (c Config) validate() (nkeys.KeyPair, error) {
	var errs []error
	if c.URL == "" {
		errs = append(errs, fmt.Errorf("%w: URL is empty", ErrConfig))
	}
	if c.Name == "" || strings.ContainsAny(c.Name, ".*> \t\r\n") {
		errs = append(errs, fmt.Errorf("%w: name %q is not a role", ErrConfig, c.Name))
	}
	kp, err := nkeys.FromSeed(c.Seed)
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: seed: %v", ErrConfig, err))
	}
	return kp, errors.Join(errs...)
}

// Connect opens role cfg.Name's connection: it authenticates as the nkey user
// of cfg.Seed, names the connection after the role, uses the role's own reply
// inbox prefix, and reconnects forever with capped, jittered backoff. Until
// the first connection succeeds it retries with the same backoff until ctx
// ends (or cfg.ConnectTimeout passes). It returns ErrConfig, or ErrConnect
// wrapping the last connection error.
func Connect(ctx context.Context, cfg Config) (*Conn, error) {
	cfg = cfg.withDefaults()
	kp, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return nil, fmt.Errorf("%w: seed: %v", ErrConfig, err)
	}
	log := cfg.Logger.With("component", "bus", "service", cfg.Name)
	c := &Conn{cfg: cfg, log: log, closed: make(chan struct{})}
	opts := []nats.Option{
		nats.Name(cfg.Name),
		nats.Nkey(pub, kp.Sign),
		nats.CustomInboxPrefix(topology.InboxPrefix(cfg.Name)),
		nats.MaxReconnects(-1),
		nats.CustomReconnectDelay(backoff(250*time.Millisecond, 10*time.Second)),
		// A server cut off by a partition sends no FIN: only unanswered
		// pings tell. 5 s × 3 notices it within 20 s (default: 2 min × 2).
		nats.PingInterval(5 * time.Second),
		nats.MaxPingsOutstanding(3),
		nats.DrainTimeout(cfg.ShutdownTimeout),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("bus disconnected", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("bus reconnected", "url", nc.ConnectedUrlRedacted()) }),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			log.Error("bus error", "subject", subject, "err", err)
		}),
		nats.ClosedHandler(func(*nats.Conn) { close(c.closed) }),
	}
	if strings.Contains(cfg.URL, ",") {
		// A configured list names where the servers are. The addresses a
		// cluster gossips are the ones its nodes advertise: behind Docker
		// or NAT, often ones this client cannot reach (a container IP on a
		// network the node was cut off from). A reconnect that tries one
		// waits out a dial timeout per attempt; stay on the list.
		opts = append(opts, nats.IgnoreDiscoveredServers())
	}
	if cfg.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.ConnectTimeout)
		defer cancel()
	}
	delay := backoff(250*time.Millisecond, 5*time.Second)
	for attempt := 1; ; attempt++ {
		nc, err := nats.Connect(cfg.URL, opts...)
		if err == nil {
			c.nc = nc
			break
		}
		if errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) {
			return nil, fmt.Errorf("%w: %s as %s: %w", ErrConnect, redactURL(cfg.URL), cfg.Name, err)
		}
		log.Warn("bus connect failed", "attempt", attempt, "err", err)
		t := time.NewTimer(delay(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w: %s as %s: %w (last: %w)", ErrConnect, redactURL(cfg.URL), cfg.Name, ctx.Err(), err)
		case <-t.C:
		}
	}
	// An async publish (PublishAsync) whose ack never comes fails after
	// PublishTimeout rather than waiting for ever.
	js, err := jetstream.New(c.nc, jetstream.WithPublishAsyncTimeout(cfg.PublishTimeout))
	if err != nil {
		c.nc.Close()
		return nil, fmt.Errorf("%w: jetstream: %w", ErrConnect, err)
	}
	c.js = js
	return c, nil
}

// backoff returns exponential delays from base, capped at max, with up to 20%
// jitter so a restarted fleet does not reconnect in lock step.
func backoff(base, max time.Duration) func(attempt int) time.Duration {
	return func(attempt int) time.Duration {
		d := base
		for i := 1; i < attempt && d < max; i++ {
			d *= 2
		}
		d = min(d, max)
		return d - time.Duration(rand.Int64N(int64(d)/5+1))
	}
}

func redactURL(u string) string {
	if i := strings.Index(u, "@"); i >= 0 {
		if j := strings.Index(u, "://"); j >= 0 && j < i {
			return u[:j+3] + "[redacted]" + u[i:]
		}
	}
	return u
}

// Config returns the connection's effective configuration (defaults applied).
func (c *Conn) Config() Config { return c.cfg }

// Connected reports whether the connection is currently up (health checks).
func (c *Conn) Connected() bool { return c.nc.IsConnected() }

// Close drains the connection: subscriptions stop, pending replies and
// publishes are flushed, and it waits until the connection is closed or the
// drain timeout (cfg.ShutdownTimeout) passed. Routers and servers should be
// stopped first. It returns the drain error, if any.
func (c *Conn) Close() error {
	if c.nc.IsClosed() {
		return nil
	}
	if err := c.nc.Drain(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
		c.nc.Close()
		return fmt.Errorf("bus: drain: %w", err)
	}
	t := time.NewTimer(c.cfg.ShutdownTimeout + time.Second)
	defer t.Stop()
	select {
	case <-c.closed:
	case <-t.C:
		c.nc.Close()
	}
	return nil
}

// Publish stores out's envelope on subject (out.Envelope.Subject when subject
// is empty) and returns only after JetStream acknowledged it. out.MsgID becomes
// Nats-Msg-Id, so a second publish with the same id inside the stream's
// duplicate window is acknowledged but not stored again. md becomes headers
// with lowercase keys; the W3C traceparent of ctx and the correlation id of
// the message being handled are added. It returns ErrUnknownSubject for a
// subject no stream stores, ErrPublish wrapping the JetStream error otherwise.
func (c *Conn) Publish(ctx context.Context, subject string, out Out, md map[string]string) error {
	_, err := c.PublishFresh(ctx, subject, out, md)
	return err
}

// PublishFresh is Publish that also says whether JetStream stored the
// message: fresh is false when it dropped it as a duplicate of out.MsgID
// inside the stream's window (a copy was stored before).
func (c *Conn) PublishFresh(ctx context.Context, subject string, out Out, md map[string]string) (fresh bool, err error) {
	if subject == "" {
		subject = out.Envelope.Subject
	}
	stream, ok := topology.StreamFor(subject)
	if !ok {
		return false, fmt.Errorf("%w: %q", ErrUnknownSubject, subject)
	}
	ctx, span := otel.Tracer("agentk/platform/bus").Start(role.With(ctx, c.cfg.Name), "send "+subject,
		trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(append(messagingAttrs(subject),
			attribute.String("messaging.message.id", out.MsgID))...))
	defer span.End()
	msg := nats.NewMsg(subject)
	msg.Data = out.Envelope.Marshal()
	setHeaders(ctx, msg.Header, md)
	return c.storeFresh(ctx, span, stream, msg, out.MsgID)
}

// storeFresh is storeMsg reporting fresh, with a failure set on span.
func (c *Conn) storeFresh(ctx context.Context, span trace.Span, stream string, msg *nats.Msg, msgID string) (bool, error) {
	dup, err := c.storeMsg(ctx, stream, msg, msgID)
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		return false, err
	}
	return !dup, nil
}

func (c *Conn) publishMsg(ctx context.Context, stream string, msg *nats.Msg, msgID string) error {
	_, err := c.storeMsg(ctx, stream, msg, msgID)
	return err
}

// storeMsg is publishMsg; dup reports that JetStream dropped msg as a
// duplicate of msgID.
func (c *Conn) storeMsg(ctx context.Context, stream string, msg *nats.Msg, msgID string) (dup bool, err error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.PublishTimeout)
		defer cancel()
	}
	opts := []jetstream.PublishOpt{jetstream.WithExpectStream(stream)}
	if msgID != "" {
		opts = append(opts, jetstream.WithMsgID(msgID))
	}
	ack, err := c.publishRetrying(ctx, msg, opts)
	if err != nil {
		if c.nc.IsClosed() {
			err = errors.Join(ErrClosed, err)
		}
		return false, fmt.Errorf("%w: %s msg_id %q: %w", ErrPublish, msg.Subject, msgID, err)
	}
	if ack.Duplicate {
		c.log.Debug("duplicate publish dropped", "subject", msg.Subject, "msg_id", msgID)
	}
	return ack.Duplicate, nil
}

// publishRetrying publishes msg, retrying while the failure is one a stream
// leader election causes: no responders (no leader yet), or no answer (the
// request went to a leader that died or was cut off). Each attempt gets
// attemptTimeout, the whole call ctx. The Nats-Msg-Id makes a retry of a
// publish that was in fact stored a duplicate, which JetStream drops.
func (c *Conn) publishRetrying(ctx context.Context, msg *nats.Msg, opts []jetstream.PublishOpt) (*jetstream.PubAck, error) {
	delay := backoff(100*time.Millisecond, 2*time.Second)
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout(c.cfg))
		ack, err := c.js.PublishMsg(actx, msg, opts...)
		cancel()
		if err == nil || !transient(err) || c.nc.IsClosed() {
			return ack, err
		}
		if attempt == 1 || attempt%5 == 0 {
			c.log.Warn("publish not stored yet; retrying", "subject", msg.Subject, "attempt", attempt, "err", err)
		}
		t := time.NewTimer(delay(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, errors.Join(ctx.Err(), err)
		case <-t.C:
		}
	}
}

// attemptTimeout bounds one publish or ack attempt: long enough for a healthy
// cluster, short enough to try again within PublishTimeout after a request
// was swallowed by a node that died or was cut off.
func attemptTimeout(cfg Config) time.Duration {
	return max(cfg.PublishTimeout/4, 500*time.Millisecond)
}

// Transient reports whether err is what a JetStream leader election or a
// reconnection looks like to a client (no responders, no answer, 503, a
// reconnect), so an idempotent request may be sent again.
func Transient(err error) bool { return transient(err) }

// transient reports whether err is what a JetStream leader election or a
// reconnection looks like to a client, so the request may be sent again.
func transient(err error) bool {
	var apiErr *jetstream.APIError
	switch {
	case errors.Is(err, nats.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout),
		errors.Is(err, jetstream.ErrConsumerLeadershipChanged), errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrDisconnected):
		return true
	case errors.As(err, &apiErr):
		// 503: JetStream not (yet) available, cluster without quorum or leader.
		return apiErr.Code == 503
	}
	return false
}
