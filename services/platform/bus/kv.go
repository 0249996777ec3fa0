package bus

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrBucket is returned by KeyValue when the bucket does not exist or may not
// be read by this role.
var ErrBucket = errors.New("bus: kv bucket")

// KeyValue returns the KV bucket, which Provision created. Buckets are never
// created implicitly. It returns ErrBucket wrapping jetstream.ErrBucketNotFound
// when it does not exist, or the JetStream error.
func (c *Conn) KeyValue(ctx context.Context, bucket string) (jetstream.KeyValue, error) {
	kv, err := c.js.KeyValue(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBucket, bucket, err)
	}
	return kv, nil
}
