package worldgen

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// queue is how a QueueConsumer world's affected service consumes the
// caller's messages: the system and destination, the operation types the
// two ends name, and the lag (a message's wait between its publish and its
// processing): lagBase on baseline, growing by lagGrowth seconds a second
// once the regression is under way (the backlog builds while arrivals
// outrun processing). Drawn wide from the shapes' own stream.
type queue struct {
	system, dest, pubOp, procOp string
	lagBase                     time.Duration
	lagGrowth                   float64
}

// drawQueue draws a queue's parameters from rs.
func drawQueue(rs *rand.Rand) queue {
	return queue{
		system:    pick(rs, []string{"kafka", "rabbitmq", "aws_sqs", "gcp_pubsub", "activemq", "servicebus"}),
		dest:      pick(rs, []string{"orders.placed", "mail.requested", "invoice.created", "events.ingest", "thumbnails.resize", "payments.settled", "audit-log"}),
		pubOp:     pick(rs, []string{"publish", "send"}),
		procOp:    pick(rs, []string{"process", "receive", "deliver"}),
		lagBase:   time.Duration(logUniform(rs, 5, 2000) * float64(time.Millisecond)),
		lagGrowth: logUniform(rs, 0.05, 3),
	}
}

// lagAt is a message's wait when published at t (jittered ±30%).
func (e *emitter) lagAt(t time.Time) time.Duration {
	lag := float64(e.queue.lagBase) * (0.7 + 0.6*e.r.Float64())
	if e.active(t) {
		lag += e.queue.lagGrowth * float64(t.Sub(e.w.Onset))
	}
	return time.Duration(lag)
}

// attrs are the messaging attributes of a span of operation op.
func (q queue) attrs(op string) map[string]any {
	return map[string]any{"messaging.system": q.system, "messaging.destination.name": q.dest, "messaging.operation.type": op,
		"messaging.operation.name": op}
}

// message writes one stored trace whose request reaches the affected service
// as a message: the caller's entry span publishes it (a producer span) and
// answers at once; the affected service's consumer span, the producer
// span's child, starts when the message's wait is over and does the work a
// request would (children, outcome, logs). A message still waiting or in
// processing at now is not stored (Emit).
func (e *emitter) message(trace string, t time.Time, epd Endpoint, ep int, o outcome, v string, base time.Duration) {
	w, r := e.w, e.r
	topo := w.Topo
	rootID, pubID, sID := e.hex(16), e.hex(16), e.hex(16)
	res := e.resource(topo.Caller, "web-"+fmt.Sprint(3+w.Index%7), t)
	pubAt := t.Add(time.Duration(1+r.IntN(3)) * time.Millisecond)
	pubD := time.Duration(1+r.IntN(5)) * time.Millisecond
	e.span(trace, rootID, "", "POST "+topo.CallerRoute, kindServer, t, pubD+time.Duration(2+r.IntN(4))*time.Millisecond, res,
		httpServerAttrs(w.Semconv, "POST", topo.CallerRoute, 202, 443))
	e.span(trace, pubID, rootID, e.queue.dest+" "+e.queue.pubOp, kindProducer, pubAt, pubD, e.resource(topo.Caller, res["service.version"].(string), t),
		e.queue.attrs(e.queue.pubOp))
	start := pubAt.Add(e.lagAt(pubAt))
	children := e.children(trace, sID, start.Add(time.Duration(1+r.IntN(3))*time.Millisecond), epd, o, v)
	dur := time.Duration(float64(base)*o.slow) + children
	if o.fail && o.slow < 1 && children == 0 {
		dur = time.Duration(float64(base) * o.slow)
	}
	e.serverSpan(trace, sID, pubID, start, dur, ep, o, v)
	// The entry span is the consumer's: its kind, name and attributes are
	// the messaging conventions', its status and exception the outcome's.
	s := &e.out.Spans[len(e.out.Spans)-1]
	attrs := e.queue.attrs(e.queue.procOp)
	if et, ok := s.Attributes["error.type"]; ok {
		attrs["error.type"] = et
	}
	s.Kind, s.Name, s.Attributes = kindConsumer, e.queue.dest+" "+e.queue.procOp, attrs
	if o.fail && (o.exc || r.Float64() < 0.5) {
		e.errorLog(trace, sID, start.Add(dur), o, v)
	}
}
