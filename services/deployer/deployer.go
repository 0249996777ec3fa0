// Package deployer is the only agentk service with the Docker socket. It
// consumes bridge-signed approvals, checks everything itself (signatures and
// roles, digest, expiry, nonce, verdict, its own allowlist, cooldown taken
// with compare-and-set), rolls the service back to the previous image of its
// own release ledger with `compose up -d --force-recreate --no-deps`, proves
// the container runs that image, and publishes a signed agentk.action.v1.
package deployer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/deployer/internal/config"
	"agentk/services/deployer/internal/dockerrt"
	"agentk/services/deployer/internal/dryrun"
	"agentk/services/deployer/internal/kvstore"
	"agentk/services/deployer/internal/lease"
	"agentk/services/deployer/internal/ledger"
	"agentk/services/deployer/internal/marker"
	"agentk/services/deployer/internal/natsport"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Modes a deployer replica reports with service.Deps.Mode (shown at
// /readyz): the one holding the lease consumes approvals; the others stand by.
const (
	ModeLeader  = lease.ModeLeader
	ModeStandby = lease.ModeStandby
)

// ErrStart wraps every failure to start.
var ErrStart = errors.New("deployer: start")

// testRuntime, when a test sets it (export_test.go), wraps the docker
// runtime of every Run started after: a decorator of the rollback.Runtime
// port, so that a test can stop a rollback at a point of acting as a crash
// would. Production never sets it, and rollback.Deployer carries no seam.
var testRuntime atomic.Pointer[func(project string, rt rollback.Runtime) rollback.Runtime]

// Run runs the deployer until ctx is done. Of its replicas, the one holding
// the lease (package lease) consumes approvals; the others stand by. It
// calls d.Ready once it consumes or stands by, and reports which with d.Mode.
func Run(ctx context.Context, d service.Deps) error {
	cfg, err := config.FromEnv(d.Getenv)
	if err != nil {
		return err // already "<service>: invalid configuration: …"
	}
	// Ready once: a standby that takes over is ready already.
	d.Ready = sync.OnceFunc(d.MarkReady)
	dep, err := newDeployer(ctx, cfg, d)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	exp, err := exporter(ctx, cfg)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	defer func() { _ = exp.Shutdown(context.WithoutCancel(ctx)) }()
	dep.Marker = marker.OTel{Exporter: exp, Logger: d.Logger}
	if cfg.WatchMarkers && cfg.MarkerEndpoint != "" {
		// Closed before the exporter is shut down (defers run last first):
		// the markers queued at shutdown are sent.
		a := marker.NewAsync(marker.OTel{Exporter: exp, Logger: d.Logger}, announceQueue, d.Logger)
		defer func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), announceDrain)
			defer cancel()
			_ = a.Close(cctx)
		}()
		dep.Announcer = a
	}

	watchErr := make(chan error, 1)
	wire := dryRuntime
	if cfg.Runtime == config.RuntimeDocker {
		wire = liveRuntime
	}
	if err := wire(ctx, cfg, d, dep, watchErr); err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	l, err := newLease(ctx, cfg, d)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	return serve(ctx, l, func(ctx context.Context) error { return lead(ctx, cfg, d, dep) }, watchErr)
}

// The watcher's marker queue: how many markers may wait for a slow
// collector, and how long a stopping deployer waits for them.
const (
	announceQueue = 256
	announceDrain = 5 * time.Second
)

// newDeployer builds the use case on its KV buckets.
func newDeployer(ctx context.Context, cfg config.Config, d service.Deps) (*rollback.Deployer, error) {
	dep := &rollback.Deployer{
		Keyring: d.Keyring, Signer: d.Signer, Now: d.Now,
		Rules:        policy.Rules{Allowlist: cfg.Services, Project: cfg.Project, Cooldown: cfg.Cooldown},
		Stabilise:    cfg.Stabilise,
		ApplyTimeout: cfg.ComposeTimeout,
		Shadow:       cfg.Shadowed,
	}
	var freezes, incidents rollback.Bucket
	for _, b := range []struct {
		name string
		dst  *rollback.Bucket
	}{{topology.BucketNonces, &dep.Nonces}, {topology.BucketCooldown, &dep.Cooldown}, {topology.BucketReleases, &dep.Releases},
		{topology.BucketSpent, &dep.Spent}, {topology.BucketFreezes, &freezes}, {topology.BucketIncidents, &incidents}} {
		kv, err := d.Bus.KeyValue(ctx, b.name)
		if err != nil {
			return nil, err
		}
		*b.dst = kvstore.New(kv)
	}
	dep.Freezes, dep.Incidents = freezes, incidents
	return dep, nil
}

// serve stands by or acts, as the lease says, until ctx is done or the
// ledger watcher fails. The watcher runs either way: a standby's ledger is
// current when it takes over.
func serve(ctx context.Context, l *lease.Lease, term func(ctx context.Context) error, watchErr chan error) error {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- l.Run(lctx, term) }()
	select {
	case err := <-done:
		return err
	case err := <-watchErr:
		// The ledger can no longer follow Docker: stop rather than roll back
		// on a stale ledger.
		cancel()
		<-done //nolint:errcheck // wait for the term to stop; the watcher's error is the one to report
		return fmt.Errorf("deployer: ledger watcher: %w", err)
	}
}

// newLease is this replica's side of the deployer's lease: its mode goes to
// health, and a standby is ready (it takes over without a restart).
func newLease(ctx context.Context, cfg config.Config, d service.Deps) (*lease.Lease, error) {
	kv, err := d.Bus.KeyValue(ctx, topology.BucketLeases)
	if err != nil {
		return nil, fmt.Errorf("bucket %s (provisioned by `agentk provision` since the deployer runs active-standby): %w", topology.BucketLeases, err)
	}
	log := d.Logger
	return &lease.Lease{
		Store: kvstore.New(kv), Key: envelope.RoleDeployer, Holder: holderID(), TTL: cfg.Lease, Now: d.Now, Logger: log,
		OnMode: func(mode, holder string) {
			if mode == lease.ModeLeader {
				// Reported by lead once it consumes.
				log.Info("deployer holds the lease; reconciling, then consuming", "holder", holder, "lease", cfg.Lease.String())
				return
			}
			d.ReportMode(mode)
			why := "another replica holds the lease"
			if holder == "" {
				why = "the lease is unreadable or was just lost; retrying"
			}
			log.Info("deployer standing by: "+why, "holder", holder, "lease", cfg.Lease.String())
			d.MarkReady()
		},
	}, nil
}

// holderID names this replica in the lease: host, process and a random
// part, so that two replicas in one process, or a restart, differ.
func holderID() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// lead is the lease holder's term: it settles what a previous holder began
// and never finished, then consumes approvals until ctx ends (the lease was
// lost or the deployer stops).
func lead(ctx context.Context, cfg config.Config, d service.Deps, dep *rollback.Deployer) error {
	log := d.Logger
	pending, err := dep.Reconcile(ctx)
	if err != nil {
		return err
	}
	if err := natsport.PublishAll(ctx, d.Bus, log, pending); err != nil {
		return err
	}
	r, err := d.Bus.NewRouter(log)
	if err != nil {
		return err
	}
	// An approval that cannot be settled yet (a store without a leader, the
	// bus partitioned) is retried until it is: HandleMessage refuses it as
	// expired once its decision or approval expired, and that refusal is the
	// action the bridge shows in the thread. It is never dead-lettered after
	// MaxDeliver, where no human would see it.
	r.Handle(natsport.HandlerName, contracts.SubjectApproval, natsport.Handler{Deployer: dep, Logger: log}.Handle, bus.UntilAnswered())
	errc, err := service.StartRouter(ctx, r)
	if errc == nil {
		return err
	}
	log.Info("deployer consuming: this replica holds the lease", "subject", contracts.SubjectApproval, "runtime", cfg.Runtime,
		"services", cfg.Services, "project", dep.Rules.Project, "reconciled", len(pending), "lease", cfg.Lease.String(),
		"shadow_all", cfg.ShadowAll, "shadow_services", cfg.ShadowServices)
	d.ReportMode(lease.ModeLeader)
	d.MarkReady()
	return <-errc
}

// liveRuntime connects to Docker, starts the ledger watcher and wires the
// compose runtime and the recovery check.
func liveRuntime(ctx context.Context, cfg config.Config, d service.Deps, dep *rollback.Deployer, watchErr chan error) error {
	if _, err := os.Stat(cfg.ComposeFile); err != nil {
		return fmt.Errorf("%s: %w", config.EnvComposeFile, err)
	}
	cli, err := dockerrt.Connect(ctx, cfg.DockerHost)
	if err != nil {
		return err
	}
	context.AfterFunc(ctx, func() { _ = cli.Close() })
	bin, err := dockerrt.DetectCompose(ctx, exec.LookPath, dockerrt.RunQuiet)
	if err != nil {
		return err
	}
	docker := dockerrt.NewDocker(cli, cfg.Project)
	docker.Log = d.Logger
	env := dockerrt.ComposeEnv(d.Getenv)
	if cfg.DockerHost != "" && !hasKey(env, "DOCKER_HOST") {
		env = append(env, "DOCKER_HOST="+cfg.DockerHost)
	}
	dep.Runtime = &dockerrt.Compose{Bin: bin, Project: cfg.Project, File: cfg.ComposeFile, StateDir: cfg.StateDir, Docker: docker, Env: env}
	if wrap := testRuntime.Load(); wrap != nil {
		dep.Runtime = (*wrap)(cfg.Project, dep.Runtime)
	}
	dep.Recovery = recoveryChecker(cfg, d)
	return followLedger(ctx, docker, dep, d.Logger, watchErr, "compose", strings.Join(bin, " "))
}

// followLedger keeps dep's release ledger in step with the project's
// containers (dockerrt.Docker.Watch) and returns once the running ones are
// in it. Both runtimes build their ledger this way.
func followLedger(ctx context.Context, docker *dockerrt.Docker, dep *rollback.Deployer, log *slog.Logger, watchErr chan error, logArgs ...any) error {
	synced := make(chan struct{})
	go func() {
		if err := docker.Watch(ctx, follow(dep, log), func() { close(synced) }); err != nil {
			watchErr <- err
		}
	}()
	select {
	case <-synced:
		log.Info("release ledger synced from docker", append([]any{"project", dep.Rules.Project}, logArgs...)...)
		return nil
	case err := <-watchErr:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// follow is the watcher's callback: dep.Follow, with what it decided logged
// (an announced deployment at Info, a start it did not announce at Debug).
func follow(dep *rollback.Deployer, log *slog.Logger) func(context.Context, ledger.Observation) error {
	return func(ctx context.Context, o ledger.Observation) error {
		a, err := dep.Follow(ctx, o)
		if err != nil {
			return err
		}
		args := []any{"compose_service", o.Service, "image", o.Image, "image_id", o.ImageID, "container", o.ContainerID, "started_at", o.StartedAt}
		if a.Emit {
			log.InfoContext(ctx, "deployment seen; marker queued", append(args, "kind", a.Kind, "version", a.Version, "previous_version", a.PreviousVersion)...)
			return nil
		}
		log.DebugContext(ctx, "container start not announced", append(args, "reason", a.Reason)...)
		return nil
	}
}

// dryRuntime wires the dry run: seeded from a recorded incident when one is
// named (replays); else, with a compose project, on the real stack: the
// ledger follows Docker exactly as the docker runtime's does ("watch
// first"), and the compose command is reported, never run.
// dryCompose is the compose a dry run names in its commands, asked once a
// process (dockerrt.ComposeMemo).
var dryCompose dockerrt.ComposeMemo

func dryRuntime(ctx context.Context, cfg config.Config, d service.Deps, dep *rollback.Deployer, watchErr chan error) error {
	log := d.Logger
	if cfg.LedgerFromDocker() {
		cli, err := dockerrt.Connect(ctx, cfg.DockerHost)
		if err != nil {
			return err
		}
		context.AfterFunc(ctx, func() { _ = cli.Close() })
		docker := dockerrt.NewDocker(cli, cfg.Project)
		docker.Log = log
		if err := followLedger(ctx, docker, dep, log, watchErr, "runtime", config.RuntimeDryRun); err != nil {
			return err
		}
	}
	if cfg.IncidentDir != "" {
		seed, err := dryrun.Load(cfg.IncidentDir, dep.Now())
		if err != nil {
			return err
		}
		if dep.Rules.Project == "" {
			dep.Rules.Project = seed.Project
		}
		if len(dep.Rules.Allowlist) == 0 {
			dep.Rules.Allowlist = seed.Services
		}
		for _, l := range seed.Ledgers {
			if err := dep.ReplaceLedger(ctx, l); err != nil {
				return err
			}
		}
		for _, c := range seed.Cooldowns {
			if err := dep.PutCooldown(ctx, c); err != nil {
				return err
			}
		}
		log.Info("dry run seeded from a recorded incident", "dir", cfg.IncidentDir, "project", dep.Rules.Project,
			"services", dep.Rules.Allowlist, "prior_actions", len(seed.Cooldowns))
	}
	bin, err := dryCompose.Detect(ctx, exec.LookPath, dockerrt.RunQuiet)
	if err != nil {
		bin = []string{"docker", "compose"}
	}
	file, state := cfg.ComposeFile, cfg.StateDir
	if file == "" {
		file = "docker-compose.yml"
	}
	if state == "" {
		state = "/var/lib/agentk/deployer"
	}
	c := &dockerrt.Compose{Bin: bin, Project: dep.Rules.Project, File: file, StateDir: state}
	dep.Runtime = dryrun.Runtime{Command: c.Command}
	return nil
}

// exporter is OTLP/HTTP (or gRPC, config.Config.MarkerGRPC) to the marker
// endpoint (config.Config.MarkerEndpoint) when there is one, else one that
// drops spans: the providers are built either way.
func exporter(ctx context.Context, cfg config.Config) (sdktrace.SpanExporter, error) {
	if cfg.MarkerEndpoint == "" {
		return tracetest.NewNoopExporter(), nil
	}
	if cfg.MarkerGRPC {
		return otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(cfg.MarkerEndpoint))
	}
	return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(strings.TrimRight(cfg.MarkerEndpoint, "/")+"/v1/traces"))
}

func hasKey(env []string, k string) bool {
	for _, e := range env {
		if strings.HasPrefix(e, k+"=") {
			return true
		}
	}
	return false
}
