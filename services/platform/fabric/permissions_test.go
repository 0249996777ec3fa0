package fabric_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/identity"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
)

func start(t *testing.T, dir string) *fabric.Fabric {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: dir})
	require.NoError(t, err)
	return f
}

// rawConn connects with role's credentials and reports the server's async
// errors (permission violations) on the returned channel.
func rawConn(t *testing.T, f *fabric.Fabric, role string) (*nats.Conn, <-chan error) {
	t.Helper()
	seed, err := f.Identities().Seed(role)
	require.NoError(t, err)
	kp, err := nkeys.FromSeed(seed)
	require.NoError(t, err)
	pub, err := kp.PublicKey()
	require.NoError(t, err)
	errs := make(chan error, 16)
	nc, err := nats.Connect(f.URL(), nats.Nkey(pub, kp.Sign), nats.CustomInboxPrefix(topology.InboxPrefix(role)),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { errs <- err }))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc, errs
}

func waitPermErr(t *testing.T, errs <-chan error, subject string) {
	t.Helper()
	select {
	case err := <-errs:
		require.ErrorIs(t, err, nats.ErrPermissionViolation)
		require.Contains(t, err.Error(), subject)
	case <-time.After(5 * time.Second):
		t.Fatalf("no permission violation for %s", subject)
	}
}

func TestForbiddenPublishesAreRefused(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	adm, err := f.Admin(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = adm.Close() })

	cases := []struct {
		name    string
		role    string
		subject string
		stream  string
	}{
		{name: "investigator publishes a decision", role: envelope.RoleInvestigator, subject: contracts.SubjectDecision, stream: "AGENTK_DECISIONS"},
		{name: "investigator publishes under agentk.decision.>", role: envelope.RoleInvestigator, subject: contracts.SubjectDecision + ".forged", stream: "AGENTK_DECISIONS"},
		{name: "deployer publishes an approval", role: envelope.RoleDeployer, subject: contracts.SubjectApproval, stream: "AGENTK_APPROVALS"},
		{name: "reviewer publishes an action", role: envelope.RoleReviewer, subject: contracts.SubjectAction, stream: "AGENTK_ACTIONS"},
		{name: "gate publishes an approval", role: envelope.RoleGate, subject: contracts.SubjectApproval, stream: "AGENTK_APPROVALS"},
		{name: "sandbox publishes an alert", role: envelope.RoleSandbox, subject: contracts.SubjectAlert, stream: "AGENTK_ALERTS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nc, errs := rawConn(t, f, tc.role)
			// Core publish.
			require.NoError(t, nc.Publish(tc.subject, []byte(`{}`)))
			require.NoError(t, nc.Flush())
			waitPermErr(t, errs, tc.subject)
			// JetStream publish: never acknowledged, never stored.
			js, err := jetstream.New(nc)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err = js.Publish(ctx, tc.subject, []byte(`{}`))
			require.Error(t, err)
			waitPermErr(t, errs, tc.subject)
			// The bus reports it as a failed publish.
			c, err := f.Connect(context.Background(), tc.role)
			require.NoError(t, err)
			defer func() { _ = c.Close() }()
			if _, ok := topology.StreamFor(tc.subject); ok {
				err = c.Publish(ctx, tc.subject, bus.Out{Envelope: envelope.Envelope{Subject: tc.subject}}, nil)
				require.ErrorIs(t, err, bus.ErrPublish)
			}
			s, err := adm.JetStream().Stream(context.Background(), tc.stream)
			require.NoError(t, err)
			info, err := s.Info(context.Background())
			require.NoError(t, err)
			require.Zero(t, info.State.Msgs)
		})
	}
}

func TestForbiddenJetStreamAPIIsRefused(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	nc, _ := rawConn(t, f, envelope.RoleInvestigator)
	js, err := jetstream.New(nc)
	require.NoError(t, err)

	cases := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{name: "delete a stream", call: func(ctx context.Context) error { return js.DeleteStream(ctx, "AGENTK_ALERTS") }},
		{name: "consume decisions", call: func(ctx context.Context) error {
			_, err := js.CreateOrUpdateConsumer(ctx, "AGENTK_DECISIONS", jetstream.ConsumerConfig{Durable: "x", FilterSubject: contracts.SubjectDecision})
			return err
		}},
		{name: "write the cooldown", call: func(ctx context.Context) error {
			kv, err := js.KeyValue(ctx, topology.BucketCooldown)
			if err != nil {
				return err
			}
			_, err = kv.Put(ctx, "api", []byte("0"))
			return err
		}},
		{name: "create a stream", call: func(ctx context.Context) error {
			_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVIL", Subjects: []string{"evil.>"}})
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			require.Error(t, tc.call(ctx))
		})
	}

	t.Run("read another role's inbox", func(t *testing.T) {
		nc2, errs := rawConn(t, f, envelope.RoleInvestigator)
		_, err := nc2.SubscribeSync(topology.InboxPrefix(envelope.RoleGate) + ".>")
		require.NoError(t, err)
		require.NoError(t, nc2.Flush())
		select {
		case err := <-errs:
			require.ErrorIs(t, err, nats.ErrPermissionViolation)
		case <-time.After(5 * time.Second):
			t.Fatal("subscription to another role's inbox was not refused")
		}
	})
}

// TestEveryRoleCanDoWhatItsGrantSays walks topology.Grants: every durable
// subject a role publishes is stored, every stream it consumes gets a durable
// consumer, it serves and requests what it should, and reads and writes its
// buckets.
func TestEveryRoleCanDoWhatItsGrantSays(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// Someone must serve the tool subject for the investigator's request.
	sbx, err := f.Connect(ctx, envelope.RoleSandbox)
	require.NoError(t, err)
	stopTool, err := sbx.Serve(ctx, contracts.SubjectToolCall, "sandbox-test", func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error) {
		return env, nil
	})
	require.NoError(t, err)
	defer func() { _ = stopTool() }()

	for _, g := range topology.Grants {
		t.Run(g.Role, func(t *testing.T) {
			c, err := f.Connect(ctx, g.Role)
			require.NoError(t, err)
			defer func() { _ = c.Close() }()
			signer := f.Signer(g.Role)
			for _, s := range g.Publish {
				env, err := signer.Seal(s, []byte(`{}`), time.Now(), 0)
				require.NoError(t, err)
				require.NoError(t, c.Publish(ctx, s, bus.Out{Envelope: env, MsgID: g.Role + s}, nil), "publish %s", s)
			}
			if len(g.Consume) > 0 {
				r, err := c.NewRouter(nil)
				require.NoError(t, err)
				for _, s := range g.Consume {
					name := "perm-" + strings.ReplaceAll(s, ".", "_")
					r.Handle(name, s, func(context.Context, bus.Message) ([]bus.Out, error) { return nil, nil })
				}
				rctx, rcancel := context.WithCancel(ctx)
				errc := make(chan error, 1)
				go func() { errc <- r.Run(rctx) }()
				select {
				case <-r.Running():
				case err := <-errc:
					t.Fatalf("router: %v", err)
				case <-ctx.Done():
					t.Fatal("router not running")
				}
				rcancel()
				require.NoError(t, <-errc)
			}
			for _, s := range g.Serve {
				stop, err := c.Serve(ctx, s, "perm-test", func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error) {
					return env, nil
				})
				require.NoError(t, err, "serve %s", s)
				require.NoError(t, stop())
			}
			for _, s := range g.Request {
				env, err := signer.Seal(s, []byte(`{}`), time.Now(), 0)
				require.NoError(t, err)
				_, err = c.Request(ctx, s, env)
				require.NoError(t, err, "request %s", s)
			}
			for _, b := range g.KVRead {
				kv, err := c.KeyValue(ctx, b)
				require.NoError(t, err, "bucket %s", b)
				_, err = kv.Get(ctx, "missing")
				require.ErrorIs(t, err, jetstream.ErrKeyNotFound, "read %s", b)
				w, err := kv.WatchAll(ctx)
				require.NoError(t, err, "watch %s", b)
				require.NoError(t, w.Stop())
			}
			for _, b := range g.KVWrite {
				kv, err := c.KeyValue(ctx, b)
				require.NoError(t, err, "bucket %s", b)
				rev, err := kv.Create(ctx, "k-"+g.Role, []byte("1"))
				require.NoError(t, err, "create in %s", b)
				_, err = kv.Update(ctx, "k-"+g.Role, []byte("2"), rev)
				require.NoError(t, err, "update in %s", b)
				e, err := kv.Get(ctx, "k-"+g.Role)
				require.NoError(t, err)
				require.Equal(t, "2", string(e.Value()))
			}
		})
	}
}

func TestRestartKeepsKeysAndData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	f := start(t, dir)
	kid := f.Signer(envelope.RoleGate).KeyID()
	dep, err := f.Connect(ctx, envelope.RoleDeployer)
	require.NoError(t, err)
	env, err := f.Signer(envelope.RoleDeployer).Seal(contracts.SubjectAction, []byte(`{"n":1}`), time.Now(), 0)
	require.NoError(t, err)
	require.NoError(t, dep.Publish(ctx, "", bus.Out{Envelope: env, MsgID: "action.1"}, nil))
	kv, err := dep.KeyValue(ctx, topology.BucketCooldown)
	require.NoError(t, err)
	_, err = kv.Put(ctx, "api", []byte("cooling"))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	f2 := start(t, dir)
	t.Cleanup(func() { require.NoError(t, f2.Close()) })
	require.Equal(t, kid, f2.Signer(envelope.RoleGate).KeyID(), "keys survive a restart")
	gate, err := f2.Connect(ctx, envelope.RoleGate)
	require.NoError(t, err)
	gkv, err := gate.KeyValue(ctx, topology.BucketCooldown)
	require.NoError(t, err)
	e, err := gkv.Get(ctx, "api")
	require.NoError(t, err)
	require.Equal(t, "cooling", string(e.Value()), "cooldown survives a restart")
	adm, err := f2.Admin(ctx)
	require.NoError(t, err)
	defer func() { _ = adm.Close() }()
	s, err := adm.JetStream().Stream(ctx, "AGENTK_ACTIONS")
	require.NoError(t, err)
	m, err := s.GetMsg(ctx, 1)
	require.NoError(t, err)
	got, err := envelope.Parse(m.Data)
	require.NoError(t, err)
	require.NoError(t, f2.Keyring().Verify(got, contracts.SubjectAction, envelope.RoleDeployer, time.Now()))
	// Dedup state survives too: the same action id is not stored twice.
	dep2, err := f2.Connect(ctx, envelope.RoleDeployer)
	require.NoError(t, err)
	require.NoError(t, dep2.Publish(ctx, "", bus.Out{Envelope: env, MsgID: "action.1"}, nil))
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(1), info.State.Msgs)
}

func TestConnectUnknownRole(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	_, err := f.Connect(context.Background(), "mallory")
	require.True(t, errors.Is(err, fabric.ErrRole))
}

// A production container holds keyring.json and its own seed only: it
// connects and signs as itself and as nobody else.
func TestRemoteWithOnlyOwnSeed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := start(t, dir)
	t.Cleanup(func() { require.NoError(t, f.Close()) })

	keys := t.TempDir()
	src := filepath.Join(dir, "keys")
	for _, name := range []string{identity.KeyringFile, envelope.RoleGate + ".nk"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(keys, name), b, 0o600))
	}
	ctx := context.Background()
	r, err := fabric.Remote(ctx, f.URL(), keys, fabric.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })
	require.Len(t, r.Keyring().Entries(), len(envelope.Roles), "verifies every role")
	require.NotNil(t, r.Signer(envelope.RoleGate))
	require.Nil(t, r.Signer(envelope.RoleBridge), "cannot sign as another role")
	_, err = r.Deps(ctx, envelope.RoleGate, nil, func(string) string { return "" })
	require.NoError(t, err)
	_, err = r.Connect(ctx, envelope.RoleDeployer)
	require.ErrorIs(t, err, fabric.ErrRole)

	// A seed that disagrees with the keyring is refused.
	other, err := identity.Ensure(t.TempDir())
	require.NoError(t, err)
	seed, err := other.Seed(envelope.RoleGate)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(keys, envelope.RoleGate+".nk"), seed, 0o600))
	_, err = fabric.Remote(ctx, f.URL(), keys, fabric.Options{})
	require.ErrorIs(t, err, identity.ErrKeyring)
}

// Only the bridge writes freezes; the gate and the deployer, which obey
// them, can read but never lift one.
func TestOnlyTheBridgeWritesFreezes(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	for _, tc := range []struct {
		name     string
		role     string
		mayWrite bool
	}{
		{name: "bridge writes", role: envelope.RoleBridge, mayWrite: true},
		{name: "gate only reads", role: envelope.RoleGate},
		{name: "deployer only reads", role: envelope.RoleDeployer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			nc, _ := rawConn(t, f, tc.role)
			js, err := jetstream.New(nc)
			require.NoError(t, err)
			kv, err := js.KeyValue(ctx, topology.BucketFreezes)
			require.NoError(t, err)
			_, err = kv.Get(ctx, "_global")
			require.ErrorIs(t, err, jetstream.ErrKeyNotFound)
			_, err = kv.Put(ctx, "svc-"+tc.role, []byte("x"))
			if tc.mayWrite {
				require.NoError(t, err)
				st, err := kv.Status(ctx)
				require.NoError(t, err)
				require.EqualValues(t, 64, st.History(), "every set and lift is kept")
				return
			}
			require.Error(t, err)
		})
	}
}

// Only the deployer consumes decisions (agentk_spent) and holds its lease
// (agentk_leases); it reads the ingester's incident records for their
// resolve time and can never write one.
func TestOnlyTheDeployerSpendsDecisions(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	for _, tc := range []struct {
		name     string
		role     string
		bucket   string
		mayRead  bool
		mayWrite bool
	}{
		{name: "deployer spends", role: envelope.RoleDeployer, bucket: topology.BucketSpent, mayRead: true, mayWrite: true},
		{name: "bridge cannot spend", role: envelope.RoleBridge, bucket: topology.BucketSpent},
		{name: "gate cannot spend", role: envelope.RoleGate, bucket: topology.BucketSpent},
		{name: "investigator cannot spend", role: envelope.RoleInvestigator, bucket: topology.BucketSpent},
		{name: "deployer reads incidents", role: envelope.RoleDeployer, bucket: topology.BucketIncidents, mayRead: true},
		{name: "bridge reads incidents", role: envelope.RoleBridge, bucket: topology.BucketIncidents, mayRead: true},
		{name: "gate cannot read incidents", role: envelope.RoleGate, bucket: topology.BucketIncidents},
		{name: "ingester writes incidents", role: envelope.RoleIngester, bucket: topology.BucketIncidents, mayRead: true, mayWrite: true},
		{name: "deployer holds its lease", role: envelope.RoleDeployer, bucket: topology.BucketLeases, mayRead: true, mayWrite: true},
		{name: "bridge cannot touch the lease", role: envelope.RoleBridge, bucket: topology.BucketLeases},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			nc, _ := rawConn(t, f, tc.role)
			js, err := jetstream.New(nc)
			require.NoError(t, err)
			kv, err := js.KeyValue(ctx, tc.bucket)
			if !tc.mayRead {
				require.Error(t, err, "%s may not even bind %s", tc.role, tc.bucket)
				return
			}
			require.NoError(t, err)
			_, err = kv.Get(ctx, "dec-nothing")
			require.ErrorIs(t, err, jetstream.ErrKeyNotFound)
			_, err = kv.Create(ctx, "dec-"+tc.role, []byte("x"))
			if tc.mayWrite {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
		})
	}
}

// The deployer may ask the sandbox for its recovery check, never answer tool
// calls itself; other roles without the grant may not ask at all.
func TestToolCallsOnlyFromTheirGrants(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, f.Close()) })

	t.Run("deployer serves tool calls", func(t *testing.T) {
		nc, errs := rawConn(t, f, envelope.RoleDeployer)
		_, err := nc.QueueSubscribeSync(contracts.SubjectToolCall, "sandbox")
		require.NoError(t, err)
		require.NoError(t, nc.Flush())
		waitPermErr(t, errs, contracts.SubjectToolCall)
	})
	for _, role := range []string{envelope.RoleReviewer, envelope.RoleGate, envelope.RoleBridge, envelope.RoleIngester} {
		t.Run(role+" calls a tool", func(t *testing.T) {
			nc, errs := rawConn(t, f, role)
			require.NoError(t, nc.Publish(contracts.SubjectToolCall, []byte(`{}`)))
			require.NoError(t, nc.Flush())
			waitPermErr(t, errs, contracts.SubjectToolCall)
		})
	}
}
