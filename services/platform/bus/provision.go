package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"agentk/platform/mutant"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrProvision is returned by Provision when a stream or bucket cannot be
// created or updated.
var ErrProvision = errors.New("bus: provision")

// ProvisionConfig sizes the streams and buckets. Zero values take defaults.
type ProvisionConfig struct {
	// Replicas is 1 for an embedded server, 3 in a cluster (default 1).
	Replicas int
	// MaxAge is how long messages are kept (default 30 days): the audit trail
	// of every decision, approval and action depends on it.
	MaxAge time.Duration
	// Duplicates is the Nats-Msg-Id de-duplication window (default 2 min).
	Duplicates time.Duration
	// MaxBytes and MaxMsgs cap each stream (default unlimited: -1).
	MaxBytes int64
	MaxMsgs  int64
	// KVHistory is how many revisions per key a bucket keeps (default 10,
	// at least 5).
	KVHistory int
	// Memory keeps streams and buckets (and so their consumers) in memory
	// instead of on the file store: for a fabric whose store is thrown away
	// when it stops (a replay's scratch folder), where creating and removing
	// the file store's folders and metadata files for every stream, bucket
	// and consumer was a tenth of an eval's CPU. Production never sets it:
	// the audit trail and the cooldown must survive a restart.
	Memory bool
}

// storage is where p keeps streams and buckets.
func (p ProvisionConfig) storage() jetstream.StorageType {
	if p.Memory {
		return jetstream.MemoryStorage
	}
	return jetstream.FileStorage
}

func (p ProvisionConfig) withDefaults() ProvisionConfig {
	if p.Replicas <= 0 {
		p.Replicas = 1
	}
	if p.MaxAge <= 0 {
		p.MaxAge = 30 * 24 * time.Hour
	}
	if p.Duplicates <= 0 {
		p.Duplicates = 2 * time.Minute
	}
	if p.MaxBytes == 0 {
		p.MaxBytes = -1
	}
	if p.MaxMsgs == 0 {
		p.MaxMsgs = -1
	}
	if p.KVHistory <= 0 {
		p.KVHistory = 10
	}
	p.KVHistory = max(p.KVHistory, 5)
	return p
}

// StreamConfigs returns the stream configurations Provision applies: one per
// durable subject and the dead-letter stream. Streams keep messages by limits
// (not work-queue): several services read the same subject, and the stream is
// the audit trail, so deleting or purging messages is denied.
func StreamConfigs(p ProvisionConfig) []jetstream.StreamConfig {
	p = p.withDefaults()
	mk := func(name, desc string, subjects ...string) jetstream.StreamConfig {
		return jetstream.StreamConfig{
			Name: name, Description: desc, Subjects: subjects,
			Retention: jetstream.LimitsPolicy, Storage: p.storage(),
			Replicas: p.Replicas, MaxAge: p.MaxAge, MaxBytes: p.MaxBytes, MaxMsgs: p.MaxMsgs,
			Discard: jetstream.DiscardOld, Duplicates: min(p.Duplicates, p.MaxAge),
			DenyDelete: true, DenyPurge: true,
		}
	}
	out := make([]jetstream.StreamConfig, 0, len(topology.Streams)+1)
	for _, s := range topology.Streams {
		out = append(out, mk(s.Name, "agentk "+s.Subject, s.Subject))
	}
	return append(out, mk(topology.DLQStream, "agentk dead letters", topology.DLQPrefix+">"))
}

// BucketConfig returns the configuration Provision applies to bucket: the
// wiring table's history (else cfg's), and, for a bucket whose keys expire
// with the streams' messages (topology.BucketExpires), cfg's MaxAge as TTL.
func BucketConfig(bucket string, cfg ProvisionConfig) jetstream.KeyValueConfig {
	cfg = cfg.withDefaults()
	kc := jetstream.KeyValueConfig{
		Bucket: bucket, Description: "agentk " + bucket, History: uint8(min(topology.BucketHistory(bucket, cfg.KVHistory), 64)),
		Storage: cfg.storage(), Replicas: cfg.Replicas,
	}
	if topology.BucketExpires(bucket) {
		kc.TTL = cfg.MaxAge
	}
	return kc
}

// Provision creates or updates every stream and KV bucket of the fabric with
// CreateOrUpdateStream / CreateOrUpdateKeyValue. It is idempotent and must run
// with the admin connection before services start. It returns ErrProvision
// naming every stream or bucket that failed.
//
// A cluster that has elected its meta leader may not yet count every peer
// online (a node still joining, or one restarting): JetStream then refuses a
// replicated stream with "no suitable peers for placement" (JSClusterNoPeers,
// 10005). That refusal is retried every placementRetry until ctx ends or
// placementWait has passed, so services started beside a forming cluster
// wait for it instead of failing, and a node that stays down still fails the
// start, naming the refusal; every other error is returned at once.
func Provision(ctx context.Context, js jetstream.JetStream, cfg ProvisionConfig) error {
	cfg = cfg.withDefaults()
	var errs []error
	for _, sc := range StreamConfigs(cfg) {
		if err := untilPlaced(ctx, func() error { return createOrUpdateStream(ctx, js, sc) }); err != nil {
			errs = append(errs, fmt.Errorf("%w: stream %s: %w", ErrProvision, sc.Name, err))
		}
	}
	for _, b := range topology.Buckets {
		err := untilPlaced(ctx, func() error { return createOrUpdateBucket(ctx, js, BucketConfig(b, cfg)) })
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: bucket %s: %w", ErrProvision, b, err))
		}
	}
	return errors.Join(errs...)
}

// createOrUpdateStream is js.CreateOrUpdateStream creating first: nats.go's
// asks for an update, and only when the stream is not found for its
// creation, two requests for each stream of a new server (an eval's every
// replay starts one). A stream of the same configuration is created again
// without change; one that exists with another configuration is refused as
// already in use, and then updated as nats.go would have.
func createOrUpdateStream(ctx context.Context, js jetstream.JetStream, sc jetstream.StreamConfig) error {
	_, err := js.CreateStream(ctx, sc)
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		_, err = js.CreateOrUpdateStream(ctx, sc)
	}
	return err
}

// createOrUpdateBucket is js.CreateOrUpdateKeyValue creating first, as
// createOrUpdateStream: a bucket that exists with another configuration is
// refused as existing, and then updated as nats.go would have.
func createOrUpdateBucket(ctx context.Context, js jetstream.JetStream, kc jetstream.KeyValueConfig) error {
	_, err := js.CreateKeyValue(ctx, kc)
	if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		_, err = js.CreateOrUpdateKeyValue(ctx, kc)
	}
	return err
}

// placementRetry is how often a placement refused for want of peers is tried
// again, and placementWait how long at most.
const (
	placementRetry = 250 * time.Millisecond
	placementWait  = 2 * time.Minute
)

// untilPlaced runs create until it does not fail with JSClusterNoPeers, ctx
// ends or placementWait has passed, and returns its last error.
func untilPlaced(ctx context.Context, create func() error) error {
	ctx, cancel := context.WithTimeout(ctx, placementWait)
	defer cancel()
	for {
		err := create()
		var api *jetstream.APIError
		if err == nil || !errors.As(err, &api) || api.ErrorCode != jsErrCodeClusterNoPeers || mutant.Off(mutant.BusPlacementRetry) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(placementRetry):
		}
	}
}

// jsErrCodeClusterNoPeers is JetStream's JSClusterNoPeersErrF: no peers
// online enough to place the replicas.
const jsErrCodeClusterNoPeers jetstream.ErrorCode = 10005
