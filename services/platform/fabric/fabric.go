// Package fabric assembles the agentk message fabric for one process: the
// role identities, an embedded nats-server (or a remote one), the streams and
// buckets, and one bus connection per service with that service's own
// credentials.
package fabric

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/identity"
	"agentk/platform/natsembed"
	"agentk/platform/service"
	"agentk/platform/topology"
)

var (
	// ErrStart is returned by StartEmbedded and Remote when the fabric cannot
	// be brought up.
	ErrStart = errors.New("fabric: start")
	// ErrRole is returned for a role that has no identity.
	ErrRole = errors.New("fabric: unknown role")
	// ErrClosed is returned by Connect and Deps after Close.
	ErrClosed = errors.New("fabric: closed")
)

// Options configure an embedded fabric.
type Options struct {
	// DataDir holds keys/ (identities), nats/ (server config and JetStream
	// store). A restart on the same DataDir keeps keys and data.
	DataDir string
	Logger  *slog.Logger
	// Port of the embedded server; 0 picks a free one.
	Port int
	// Bus is the template of every service connection (AckWait, MaxDeliver,
	// …); URL, Name, Seed and Logger are filled in per role.
	Bus bus.Config
	// Provision sizes streams and buckets (defaults: 1 replica, 30 days).
	Provision bus.ProvisionConfig
	// NoProvision leaves streams and buckets as they are even with the admin
	// seed: an operator's command reads them and must never resize them.
	NoProvision bool
}

// Fabric is a running fabric: identities, a server (embedded or remote) and
// the connections handed out, which Close drains.
type Fabric struct {
	ids   *identity.Set
	kr    *envelope.Keyring
	srv   *natsembed.Server // nil for Remote
	url   string
	log   *slog.Logger
	tmpl  bus.Config
	mu    sync.Mutex
	conns []*bus.Conn
	done  bool
}

// StartEmbedded creates or loads the identities under DataDir/keys, starts the
// embedded server on loopback with those users, and provisions streams and
// buckets as admin. It returns ErrStart wrapping the cause.
func StartEmbedded(ctx context.Context, o Options) (*Fabric, error) {
	if o.DataDir == "" {
		return nil, fmt.Errorf("%w: data dir is empty", ErrStart)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	ids, err := identity.Ensure(filepath.Join(o.DataDir, "keys"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	srv, err := natsembed.Start(natsembed.Options{
		DataDir: filepath.Join(o.DataDir, "nats"), Port: o.Port, Users: ids.PublicKeys(), Logger: o.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	// The server is this process's own, started without a cluster or a
	// leaf node: every stream has one replica.
	o.Bus.Standalone = true
	f, err := newFabric(ctx, ids, srv, srv.ClientURL(), o)
	if err != nil {
		srv.Shutdown()
		return nil, err
	}
	return f, nil
}

// Remote joins an existing NATS server at url with the identities in keysDir
// (created by `agentk keys`): keyring.json and whichever seeds the directory
// holds. A production container holds only its own seed, so it can connect
// and sign only as itself. Streams and buckets are provisioned when the admin
// seed is present (skipped otherwise: the operator provisions once). It
// returns ErrStart wrapping the cause.
func Remote(ctx context.Context, url, keysDir string, o Options) (*Fabric, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	ids, err := identity.LoadAvailable(keysDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	return newFabric(ctx, ids, nil, url, o)
}

func newFabric(ctx context.Context, ids *identity.Set, srv *natsembed.Server, url string, o Options) (*Fabric, error) {
	kr, err := ids.Keyring()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	f := &Fabric{ids: ids, kr: kr, srv: srv, url: url, log: o.Logger, tmpl: o.Bus}
	if !ids.Has(topology.RoleAdmin) {
		o.Logger.Info("no admin seed: streams and buckets are not provisioned by this process", "keys_dir", ids.Dir())
		return f, nil
	}
	if o.NoProvision {
		return f, nil
	}
	admin, err := f.connect(ctx, topology.RoleAdmin)
	if err != nil {
		return nil, fmt.Errorf("%w: admin: %w", ErrStart, err)
	}
	defer func() { _ = admin.Close() }()
	if err := bus.Provision(ctx, admin.JetStream(), o.Provision); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	return f, nil
}

// URL returns the server's client URL.
func (f *Fabric) URL() string { return f.url }

// Keyring returns the keyring of every role.
func (f *Fabric) Keyring() *envelope.Keyring { return f.kr }

// Identities returns the loaded identities.
func (f *Fabric) Identities() *identity.Set { return f.ids }

// Signer returns role's envelope signer, or nil for an unknown role.
func (f *Fabric) Signer(role string) *envelope.Signer {
	s, err := f.ids.Signer(role)
	if err != nil {
		return nil
	}
	return s
}

// Connect opens a bus connection as role with role's own credentials. Close
// drains it unless the caller closed it first. It returns ErrRole, ErrClosed
// or the bus error.
func (f *Fabric) Connect(ctx context.Context, role string) (*bus.Conn, error) {
	if _, ok := topology.GrantFor(role); !ok {
		return nil, fmt.Errorf("%w: %q", ErrRole, role)
	}
	return f.connect(ctx, role)
}

func (f *Fabric) connect(ctx context.Context, role string) (*bus.Conn, error) {
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		return nil, ErrClosed
	}
	f.mu.Unlock()
	seed, err := f.ids.Seed(role)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRole, err)
	}
	cfg := f.tmpl
	cfg.URL, cfg.Name, cfg.Seed = f.url, role, seed
	if cfg.Logger == nil {
		cfg.Logger = f.log
	}
	c, err := bus.Connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if role != topology.RoleAdmin {
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
	}
	return c, nil
}

// Admin opens an unrestricted admin connection for provisioning and
// operators' tooling (`agentk report`, tests). The caller closes it. It
// returns ErrClosed or the bus error.
func (f *Fabric) Admin(ctx context.Context) (*bus.Conn, error) {
	return f.connect(ctx, topology.RoleAdmin)
}

// Deps returns the dependencies of the service role: its own connection,
// signer, the keyring, the clock now (time.Now when nil), a logger tagged with
// the service, and getenv. It returns the errors of Connect.
func (f *Fabric) Deps(ctx context.Context, role string, now func() time.Time, getenv func(string) string) (service.Deps, error) {
	c, err := f.Connect(ctx, role)
	if err != nil {
		return service.Deps{}, err
	}
	if now == nil {
		now = func() time.Time { return time.Now().UTC() }
	}
	return service.Deps{
		Bus: c, Signer: f.Signer(role), Keyring: f.kr, Now: now,
		Logger: f.log.With("service", role), Getenv: getenv,
	}, nil
}

// Close drains every connection handed out (stop the services' routers first:
// draining lets in-flight handlers finish), then shuts the embedded server
// down, flushing JetStream to disk. It returns the drain errors.
func (f *Fabric) Close() error {
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		return nil
	}
	f.done = true
	conns := f.conns
	f.mu.Unlock()
	var errs []error
	for _, c := range conns {
		if err := c.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if f.srv != nil {
		f.srv.Shutdown()
	}
	return errors.Join(errs...)
}
