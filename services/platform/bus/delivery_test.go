package bus_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
)

// idempotentInvestigator handles each alert once per Nats-Msg-Id and always
// answers with the same report id, as the real services do.
type idempotentInvestigator struct {
	f     *fabric.Fabric
	mu    sync.Mutex
	calls int
}

func (h *idempotentInvestigator) report(t *testing.T, m bus.Message) []bus.Out {
	h.mu.Lock()
	h.calls++
	h.mu.Unlock()
	return []bus.Out{{Envelope: seal(t, h.f, envelope.RoleInvestigator, subjReport, `{"for":"`+m.Metadata["nats-msg-id"]+`"}`), MsgID: "report." + m.Metadata["nats-msg-id"]}}
}

func publishAlert(t *testing.T, f *fabric.Fabric, c *bus.Conn, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, c.Publish(ctx, subjAlert, bus.Out{Envelope: seal(t, f, envelope.RoleIngester, subjAlert, `{}`), MsgID: id}, nil))
}

// watchSubject delivers every message published on subject (core
// subscription of the admin: JetStream publishes reach it too).
func watchSubject(t *testing.T, c *bus.Conn, subject string) <-chan *nats.Msg {
	t.Helper()
	ch := make(chan *nats.Msg, 64)
	sub, err := c.NATS().ChanSubscribe(subject, ch)
	require.NoError(t, err)
	require.NoError(t, c.NATS().Flush())
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return ch
}

func TestCrashBeforeAckRedeliversAndHandlesOnce(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// crashAfterOutputs: the first process stored its output, then died
		// before acking (the output is published again on redelivery and
		// de-duplicated by Nats-Msg-Id).
		crashAfterOutputs bool
	}{
		{name: "crash mid-handler"},
		{name: "crash after outputs before ack", crashAfterOutputs: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFabric(t, bus.Config{AckWait: 300 * time.Millisecond, Retries: -1})
			adm := admin(t, f)
			reports := watchSubject(t, adm, subjReport)
			ing := connect(t, f, envelope.RoleIngester)
			h := &idempotentInvestigator{f: f}

			// First process: the handler blocks; we kill its connection.
			inv1 := connect(t, f, envelope.RoleInvestigator)
			entered := make(chan bus.Message, 1)
			release := make(chan struct{})
			r1, err := inv1.NewRouter(nil)
			require.NoError(t, err)
			r1.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
				outs := h.report(t, m)
				if tc.crashAfterOutputs {
					require.NoError(t, inv1.Publish(ctx, "", outs[0], nil))
				}
				entered <- m
				<-release
				return outs, nil
			})
			runRouter(t, r1)
			publishAlert(t, f, ing, "alert.crash")
			first := wait(t, entered, "first delivery")
			require.Equal(t, 1, first.Delivery)
			inv1.NATS().Close() // the process dies: no ack can ever be sent
			close(release)

			// Second process, same durable name.
			inv2 := connect(t, f, envelope.RoleInvestigator)
			redelivered := make(chan bus.Message, 1)
			r2, err := inv2.NewRouter(nil)
			require.NoError(t, err)
			r2.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
				redelivered <- m
				return h.report(t, m), nil
			})
			runRouter(t, r2)
			second := wait(t, redelivered, "redelivery")
			require.Equal(t, 2, second.Delivery)
			require.Equal(t, first.Envelope.Nonce, second.Envelope.Nonce)

			rep := wait(t, reports, "report")
			require.Equal(t, "report.alert.crash", rep.Header.Get(nats.MsgIdHdr))
			// Stored once whatever the number of publishes.
			stored := streamMsgs(t, adm, "AGENTK_REPORTS")
			require.Len(t, stored, 1)
			require.Equal(t, 2, h.calls)
		})
	}
}

func TestGracefulStopFinishesInFlightHandler(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{AckWait: 300 * time.Millisecond, Retries: -1})
	adm := admin(t, f)
	ing := connect(t, f, envelope.RoleIngester)
	inv := connect(t, f, envelope.RoleInvestigator)
	h := &idempotentInvestigator{f: f}
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	r, err := inv.NewRouter(nil)
	require.NoError(t, err)
	r.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		entered <- struct{}{}
		<-release
		require.NoError(t, ctx.Err(), "a graceful stop does not cancel in-flight handlers")
		return h.report(t, m), nil
	})
	stop := runRouter(t, r)
	publishAlert(t, f, ing, "alert.graceful")
	wait(t, entered, "delivery")
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	close(release)
	require.NoError(t, wait(t, stopped, "router stop"))

	require.Len(t, streamMsgs(t, adm, "AGENTK_REPORTS"), 1)
	info := consumerInfo(t, adm, "AGENTK_ALERTS", "investigate")
	require.Zero(t, info.NumAckPending, "acked before the router returned")
	require.Zero(t, info.NumPending)
}

func TestSlowHandlerKeepsItsDelivery(t *testing.T) {
	t.Parallel()
	const ackWait = 200 * time.Millisecond
	f := startFabric(t, bus.Config{AckWait: ackWait, Retries: -1})
	adm := admin(t, f)
	ing := connect(t, f, envelope.RoleIngester)
	inv := connect(t, f, envelope.RoleInvestigator)
	h := &idempotentInvestigator{f: f}
	deliveries := make(chan bus.Message, 4)
	release := make(chan struct{})
	r, err := inv.NewRouter(nil)
	require.NoError(t, err)
	r.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		deliveries <- m
		<-release
		return h.report(t, m), nil
	})
	runRouter(t, r)
	publishAlert(t, f, ing, "alert.slow")
	wait(t, deliveries, "delivery")
	// Five AckWaits pass while the handler works: no second delivery.
	select {
	case m := <-deliveries:
		t.Fatalf("redelivered while in progress: delivery %d", m.Delivery)
	case <-time.After(5 * ackWait):
	}
	close(release)
	require.Eventually(t, func() bool { return consumerInfo(t, adm, "AGENTK_ALERTS", "investigate").NumAckPending == 0 }, 10*time.Second, 10*time.Millisecond)
	require.Len(t, streamMsgs(t, adm, "AGENTK_REPORTS"), 1)
	require.Equal(t, 1, h.calls)
	require.Zero(t, consumerInfo(t, adm, "AGENTK_ALERTS", "investigate").NumRedelivered)
}

func TestTransientErrorIsRedeliveredWithBackoff(t *testing.T) {
	t.Parallel()
	const delay = 300 * time.Millisecond
	f := startFabric(t, bus.Config{Retries: 2, RetryInterval: time.Millisecond, RedeliveryDelay: delay, MaxDeliver: 5})
	ing := connect(t, f, envelope.RoleIngester)
	inv := connect(t, f, envelope.RoleInvestigator)
	h := &idempotentInvestigator{f: f}
	type call struct {
		delivery int
		at       time.Time
	}
	calls := make(chan call, 16)
	r, err := inv.NewRouter(nil)
	require.NoError(t, err)
	r.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		calls <- call{m.Delivery, time.Now()}
		if m.Delivery == 1 {
			return nil, errors.New("signoz: 503")
		}
		return h.report(t, m), nil
	})
	runRouter(t, r)
	publishAlert(t, f, ing, "alert.transient")
	// Delivery 1: the first attempt and two in-process retries.
	var first []call
	for range 3 {
		first = append(first, wait(t, calls, "attempt"))
	}
	for _, c := range first {
		require.Equal(t, 1, c.delivery)
	}
	second := wait(t, calls, "redelivery")
	require.Equal(t, 2, second.delivery)
	require.GreaterOrEqual(t, second.at.Sub(first[2].at), delay, "redelivered no sooner than the nak delay")
}

func TestDeadLetters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		err        error
		data       []byte // raw bytes published instead of an envelope
		wantCalls  int
		wantReason string
		wantError  string
	}{
		{name: "permanent error", err: bus.Permanent(errors.New("alert names no service")), wantCalls: 1, wantReason: "permanent", wantError: "alert names no service"},
		{name: "transient error until max deliver", err: errors.New("timeout"), wantCalls: 3, wantReason: "max_deliver", wantError: "timeout"},
		{name: "malformed envelope", data: []byte("not json"), wantCalls: 0, wantReason: "permanent", wantError: "envelope: malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFabric(t, bus.Config{Retries: -1, RedeliveryDelay: 10 * time.Millisecond, MaxDeliver: 3})
			adm := admin(t, f)
			dlq := watchSubject(t, adm, "agentk.dlq.>")
			ing := connect(t, f, envelope.RoleIngester)
			inv := connect(t, f, envelope.RoleInvestigator)
			var mu sync.Mutex
			calls := 0
			r, err := inv.NewRouter(nil)
			require.NoError(t, err)
			r.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
				mu.Lock()
				calls++
				mu.Unlock()
				return nil, tc.err
			})
			runRouter(t, r)
			if tc.data != nil {
				_, err := ing.JetStream().Publish(context.Background(), subjAlert, tc.data)
				require.NoError(t, err)
			} else {
				publishAlert(t, f, ing, "alert.dlq")
			}
			m := wait(t, dlq, "dead letter")
			require.Equal(t, "agentk.dlq."+subjAlert, m.Subject)
			require.Equal(t, tc.wantReason, m.Header.Get(bus.HeaderDLQReason))
			require.Contains(t, m.Header.Get(bus.HeaderDLQError), tc.wantError)
			require.Equal(t, "investigate", m.Header.Get(bus.HeaderDLQHandler))
			require.Equal(t, fmt.Sprint(max(tc.wantCalls, 1)), m.Header.Get(bus.HeaderDLQDeliveries))
			// Acked only after the dead letter was stored.
			require.Eventually(t, func() bool { return consumerInfo(t, adm, "AGENTK_ALERTS", "investigate").NumAckPending == 0 }, 10*time.Second, 10*time.Millisecond)
			stored := streamMsgs(t, adm, "AGENTK_DLQ")
			require.Len(t, stored, 1)
			if tc.data != nil {
				require.Equal(t, tc.data, stored[0].Data, "dead letter keeps the original bytes")
			}
			mu.Lock()
			require.Equal(t, tc.wantCalls, calls)
			mu.Unlock()
		})
	}
}

func TestPublishDeduplicatesByMsgID(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	ing := connect(t, f, envelope.RoleIngester)
	env := seal(t, f, envelope.RoleIngester, subjAlert, `{}`)
	for range 3 {
		require.NoError(t, ing.Publish(context.Background(), "", bus.Out{Envelope: env, MsgID: "alert.x.firing.1"}, nil))
	}
	require.NoError(t, ing.Publish(context.Background(), "", bus.Out{Envelope: env, MsgID: "alert.y.firing.1"}, nil))
	require.Len(t, streamMsgs(t, admin(t, f), "AGENTK_ALERTS"), 2)
}

func TestPublishRefusesSubjectsWithoutStream(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	ing := connect(t, f, envelope.RoleIngester)
	err := ing.Publish(context.Background(), "agentk.unknown.v1", bus.Out{Envelope: seal(t, f, envelope.RoleIngester, subjAlert, `{}`)}, nil)
	require.ErrorIs(t, err, bus.ErrUnknownSubject)
}

func TestTraceparentPropagatesEndToEnd(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	adm := admin(t, f)
	reports := watchSubject(t, adm, subjReport)
	ing := connect(t, f, envelope.RoleIngester)
	inv := connect(t, f, envelope.RoleInvestigator)
	sbx := connect(t, f, envelope.RoleSandbox)

	served := make(chan map[string]string, 1)
	stop, err := sbx.Serve(context.Background(), "agentk.tool.v1", "sandbox", func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error) {
		served <- md
		return env, nil
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, stop()) })

	handled := make(chan bus.Message, 1)
	r, err := inv.NewRouter(nil)
	require.NoError(t, err)
	r.Handle("investigate", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		handled <- m
		if _, err := inv.Request(ctx, "agentk.tool.v1", m.Envelope); err != nil {
			return nil, err
		}
		return []bus.Out{{Envelope: seal(t, f, envelope.RoleInvestigator, subjReport, `{}`), MsgID: "r"}}, nil
	})
	runRouter(t, r)

	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled, Remote: true,
	}))
	require.NoError(t, ing.Publish(ctx, subjAlert, bus.Out{Envelope: seal(t, f, envelope.RoleIngester, subjAlert, `{}`), MsgID: "a"}, nil))

	want := "4bf92f3577b34da6a3ce929d0e0e4736"
	m := wait(t, handled, "alert")
	require.Contains(t, m.Metadata["traceparent"], want)
	require.Contains(t, wait(t, served, "tool call")["traceparent"], want)
	rep := wait(t, reports, "report")
	require.True(t, strings.HasPrefix(rep.Header.Get("traceparent"), "00-"+want+"-"), rep.Header.Get("traceparent"))
}
