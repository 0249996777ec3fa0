// Package rollback is the deployer's one use case: turn a signed approval into
// at most one rollback, verified. It runs the pure checks of package policy on
// state it reads through small ports, takes the nonce and the cooldown with
// compare-and-set, acts through a Runtime, verifies, and returns the signed
// ActionV1 for the adapter to publish.
package rollback

import (
	"context"
	"time"

	"agentk/services/deployer/internal/kvstore"
	"agentk/services/deployer/internal/policy"
)

// Bucket is one KV bucket with compare-and-set writes (kvstore.Bucket).
// Get returns kvstore.ErrNotFound for a missing key; Put with rev 0 creates,
// and returns kvstore.ErrConflict when someone else wrote first.
type Bucket interface {
	Get(ctx context.Context, key string) (kvstore.Entry, error)
	Put(ctx context.Context, key string, value []byte, rev uint64) (uint64, error)
	Keys(ctx context.Context) ([]string, error)
}

// Applied is what a Runtime did to move a service.
type Applied struct {
	// Command is the exact argv run (or, in a dry run, that would be run).
	Command  []string
	ExitCode int
	// Output is the command's combined output, truncated.
	Output string
	// DryRun is true when nothing was changed.
	DryRun bool
}

// Verification is what Docker shows after an Apply.
type Verification struct {
	// Verified is true when every container of the service runs the target
	// image id, is running, and is healthy where it has a healthcheck.
	Verified bool
	// ImageID is the image id the service's container runs.
	ImageID string
	Detail  string
	// DryRun is true when the runtime never changes anything: an action it
	// began cannot have been interrupted half-way, so a restart may report
	// what it would have done.
	DryRun bool
}

// Runtime moves a compose service to a release and proves it did.
type Runtime interface {
	// Apply makes plan.Service run plan.To. A non-nil error means it could not
	// run at all; a command that ran and failed has a non-zero ExitCode.
	Apply(ctx context.Context, plan policy.Plan) (Applied, error)
	// Verify checks through the Docker API that the service runs plan.To.
	Verify(ctx context.Context, plan policy.Plan) (Verification, error)
}

// Getter reads one KV bucket (kvstore.Bucket); the freezes bucket is
// read-only to the deployer.
type Getter interface {
	Get(ctx context.Context, key string) (kvstore.Entry, error)
}

// Planner is implemented by runtimes that can say, without running it, the
// exact argv Apply would run for a service: what a shadow action records.
type Planner interface {
	CommandFor(service string) []string
}

// RecoveryChecker says whether a service is back under its SLO after a
// rollback, from telemetry. A false answer or an error goes back to a human:
// there is never a second automatic rollback.
type RecoveryChecker interface {
	Recovered(ctx context.Context, q RecoveryQuery) (bool, string, error)
}

// Mark is one deployment marker: the moment a release started serving.
type Mark struct {
	Project         string
	Service         string
	Version         string
	PreviousVersion string
	Image           string
	ImageID         string
	DeploymentID    string
	// Kind is the marker's deployment.kind: ledger.KindDeploy or
	// ledger.KindRollback.
	Kind string
	// Actor, when set, is who deployed (deployment.actor): agentk-deployer
	// for its own rollbacks; the watcher does not know who ran compose.
	Actor string
	// ContainerID, when set, is the container that started (container.id).
	ContainerID string
	At          time.Time
}

// Marker emits deployment markers (a deployment.marker span).
type Marker interface {
	Mark(ctx context.Context, m Mark)
}
