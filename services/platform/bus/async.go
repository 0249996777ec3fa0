package bus

import (
	"context"
	"fmt"

	"agentk/platform/telemetry/role"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// PublishAsync is PublishFresh issued without waiting: it sends the message
// and returns at once, and the function it returns waits for JetStream's
// acknowledgement (or ctx) and returns what PublishFresh would. Several
// publishes issued before any is awaited cost one round trip between them,
// and none of the goroutines and timers a blocking publish costs. A publish
// that JetStream did not acknowledge (no responders, an ack lost in a
// reconnection, a payload refused) is made again through PublishFresh,
// which retries and classifies the error; the Nats-Msg-Id makes a copy that
// was stored after all a duplicate. Call the returned function once.
func (c *Conn) PublishAsync(ctx context.Context, subject string, out Out, md map[string]string) func() (fresh bool, err error) {
	if subject == "" {
		subject = out.Envelope.Subject
	}
	stream, ok := topology.StreamFor(subject)
	if !ok {
		return func() (bool, error) { return false, fmt.Errorf("%w: %q", ErrUnknownSubject, subject) }
	}
	sctx, span := otel.Tracer("agentk/platform/bus").Start(role.With(ctx, c.cfg.Name), "send "+subject,
		trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(append(messagingAttrs(subject),
			attribute.String("messaging.message.id", out.MsgID))...))
	msg := nats.NewMsg(subject)
	msg.Data = out.Envelope.Marshal()
	setHeaders(sctx, msg.Header, md)
	opts := []jetstream.PublishOpt{jetstream.WithExpectStream(stream)}
	if out.MsgID != "" {
		opts = append(opts, jetstream.WithMsgID(out.MsgID))
	}
	paf, err := c.js.PublishMsgAsync(msg, opts...)
	return func() (bool, error) {
		defer span.End()
		if err == nil {
			select {
			case ack := <-paf.Ok():
				return !ack.Duplicate, nil
			case <-paf.Err():
			case <-ctx.Done():
				span.SetStatus(codes.Error, ctx.Err().Error())
				return false, fmt.Errorf("%w: %s msg_id %q: %w", ErrPublish, subject, out.MsgID, ctx.Err())
			}
		}
		// Not acknowledged: the blocking publish retries what may be
		// retried and reports the rest.
		retry := nats.NewMsg(subject)
		retry.Data = msg.Data
		setHeaders(sctx, retry.Header, md)
		return c.storeFresh(sctx, span, stream, retry, out.MsgID)
	}
}
