package bus_test

import (
	"context"
	"strconv"
	"testing"

	"agentk/contracts/envelope"
	"agentk/platform/bus"
)

// BenchmarkPublish measures one durable publish (JetStream ack awaited, file
// store, embedded server).
func BenchmarkPublish(b *testing.B) {
	f := startFabric(b, bus.Config{})
	c, err := f.Connect(context.Background(), envelope.RoleIngester)
	if err != nil {
		b.Fatal(err)
	}
	env, err := f.Signer(envelope.RoleIngester).Seal(subjAlert, make([]byte, 2048), benchNow(), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if err := c.Publish(context.Background(), subjAlert, bus.Out{Envelope: env, MsgID: strconv.Itoa(i)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRequest measures one tool-call round trip over core NATS.
func BenchmarkRequest(b *testing.B) {
	f := startFabric(b, bus.Config{})
	ctx := context.Background()
	inv, err := f.Connect(ctx, envelope.RoleInvestigator)
	if err != nil {
		b.Fatal(err)
	}
	sbx, err := f.Connect(ctx, envelope.RoleSandbox)
	if err != nil {
		b.Fatal(err)
	}
	stop, err := sbx.Serve(ctx, "agentk.tool.v1", "sandbox", func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error) {
		return env, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = stop() }()
	env, err := f.Signer(envelope.RoleInvestigator).Seal("agentk.tool.v1", make([]byte, 512), benchNow(), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := inv.Request(ctx, "agentk.tool.v1", env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRouterThroughput measures publish → handle → output publish → ack
// for one message at a time through a router.
func BenchmarkRouterThroughput(b *testing.B) {
	f := startFabric(b, bus.Config{})
	ctx := context.Background()
	ing, _ := f.Connect(ctx, envelope.RoleIngester)
	inv, _ := f.Connect(ctx, envelope.RoleInvestigator)
	out, err := f.Signer(envelope.RoleInvestigator).Seal(subjReport, []byte(`{}`), benchNow(), 0)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{}, 1)
	r, err := inv.NewRouter(nil)
	if err != nil {
		b.Fatal(err)
	}
	r.Handle("bench", subjAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		defer func() { done <- struct{}{} }()
		return []bus.Out{{Envelope: out, MsgID: "r." + m.Metadata["nats-msg-id"]}}, nil
	})
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- r.Run(rctx) }()
	select {
	case <-r.Running():
	case err := <-errc:
		b.Fatal(err)
	}
	in, err := f.Signer(envelope.RoleIngester).Seal(subjAlert, make([]byte, 2048), benchNow(), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if err := ing.Publish(ctx, subjAlert, bus.Out{Envelope: in, MsgID: "a." + strconv.Itoa(i)}, nil); err != nil {
			b.Fatal(err)
		}
		<-done
	}
}
