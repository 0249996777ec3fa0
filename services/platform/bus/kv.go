package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"agentk/platform/mutant"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrBucket is returned by KeyValue when the bucket does not exist or may not
// be read by this role.
var ErrBucket = errors.New("bus: kv bucket")

// KeyValue returns the KV bucket, which Provision created. Buckets are never
// created implicitly. It returns ErrBucket wrapping jetstream.ErrBucketNotFound
// when it does not exist, or the JetStream error.
//
// On a bucket with more than one replica, Get is answered by the bucket
// stream's leader (leaderKV): what a service decides on — referenced
// evidence, a nonce, a spent decision, a lease — must include every write
// acknowledged before the read. nats.go's Get is a direct get, which any
// replica answers, one that is behind included. Every other method is
// nats.go's.
func (c *Conn) KeyValue(ctx context.Context, bucket string) (jetstream.KeyValue, error) {
	kv, err := c.js.KeyValue(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBucket, bucket, err)
	}
	if c.cfg.Standalone {
		// One server, one replica of every stream (Config.Standalone):
		// the second request for the stream's configuration (every
		// service opens its buckets, every replay of an eval starts them
		// all) would only say so.
		return kv, nil
	}
	st, err := c.js.Stream(ctx, kvStreamPrefix+bucket)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBucket, bucket, err)
	}
	if cfg := st.CachedInfo().Config; cfg.Replicas <= 1 || !cfg.AllowDirect || mutant.Off(mutant.BusLeaderRead) {
		// One replica: a direct get is answered by the only copy there is.
		return kv, nil
	}
	return &leaderKV{KeyValue: kv, nc: c.nc, bucket: bucket, cfg: c.cfg}, nil
}

const kvStreamPrefix = "KV_"

// validKey is nats.go's rule for a key (jetstream.ErrInvalidKey otherwise).
var validKey = regexp.MustCompile(`\A[-/_=\.a-zA-Z0-9]+\z`)

// leaderKV is a clustered bucket whose Get goes to the stream leader
// ($JS.API.STREAM.MSG.GET, which only the leader serves) instead of a direct
// get ($JS.API.DIRECT.GET, served by every replica that once caught up, and
// still after it fell behind again: nats-server subscribes a follower to
// direct gets when it is current or 90% synchronised and does not
// unsubscribe it when it lags). The leader applied every write it
// acknowledged, so a key written before the read is found. While the stream
// has no leader (an election after a node was lost) a read is retried, as a
// publish is, for up to PublishTimeout; then it fails with the timeout or no
// responders, which readers treat as unreadable, never as "missing".
type leaderKV struct {
	jetstream.KeyValue
	nc     *nats.Conn
	bucket string
	cfg    Config
}

// Get returns the latest value of key as the stream leader has it. It returns
// jetstream.ErrKeyNotFound for a key that was never written, deleted or
// purged, jetstream.ErrInvalidKey for a key the protocol cannot carry, a
// *jetstream.APIError for any other refusal, or the request's error
// (nats.ErrTimeout, nats.ErrNoResponders, the context's).
func (kv *leaderKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if !validKey.MatchString(key) || strings.HasPrefix(key, ".") || strings.HasSuffix(key, ".") || strings.Contains(key, "..") {
		return nil, jetstream.ErrInvalidKey
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, kv.cfg.PublishTimeout)
		defer cancel()
	}
	req, _ := json.Marshal(map[string]string{"last_by_subj": "$KV." + kv.bucket + "." + key}) //nolint:errchkjson // a map of strings
	delay := backoff(100*time.Millisecond, 2*time.Second)
	for attempt := 1; ; attempt++ {
		e, err := kv.get(ctx, key, req)
		if err == nil || !transient(err) || kv.nc.IsClosed() {
			return e, err
		}
		t := time.NewTimer(delay(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, errors.Join(ctx.Err(), err)
		case <-t.C:
		}
	}
}

// get is one attempt of Get, bounded by attemptTimeout.
func (kv *leaderKV) get(ctx context.Context, key string, req []byte) (jetstream.KeyValueEntry, error) {
	actx, cancel := context.WithTimeout(ctx, attemptTimeout(kv.cfg))
	defer cancel()
	msg, err := kv.nc.RequestWithContext(actx, "$JS.API.STREAM.MSG.GET."+kvStreamPrefix+kv.bucket, req)
	if err != nil {
		return nil, fmt.Errorf("bus: kv %s get %s from the stream leader: %w", kv.bucket, key, err)
	}
	return decodeMsgGet(kv.bucket, key, msg.Data)
}

// msgGetResponse is the JetStream API's answer to STREAM.MSG.GET.
type msgGetResponse struct {
	Error   *jetstream.APIError `json:"error,omitempty"`
	Message *struct {
		Sequence uint64    `json:"seq"`
		Header   []byte    `json:"hdrs,omitempty"`
		Data     []byte    `json:"data,omitempty"`
		Time     time.Time `json:"time"`
	} `json:"message,omitempty"`
}

// decodeMsgGet turns the leader's answer into an entry of key, as nats.go's
// Get does: a delete or purge marker, or no message, is ErrKeyNotFound.
func decodeMsgGet(bucket, key string, data []byte) (jetstream.KeyValueEntry, error) {
	var resp msgGetResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, fmt.Errorf("bus: kv %s get %s: %w: %w", bucket, key, jetstream.ErrInvalidJetStreamResponse, err)
	}
	switch {
	case resp.Error != nil && resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound:
		return nil, jetstream.ErrKeyNotFound
	case resp.Error != nil:
		return nil, resp.Error
	case resp.Message == nil:
		return nil, fmt.Errorf("bus: kv %s get %s: %w", bucket, key, jetstream.ErrInvalidJetStreamResponse)
	}
	m := resp.Message
	if len(m.Header) > 0 {
		h, err := nats.DecodeHeadersMsg(m.Header)
		if err != nil {
			return nil, fmt.Errorf("bus: kv %s get %s: headers: %w", bucket, key, err)
		}
		if h.Get("KV-Operation") != "" || h.Get(jetstream.MarkerReasonHeader) != "" {
			return nil, jetstream.ErrKeyNotFound
		}
	}
	return entry{bucket: bucket, key: key, value: m.Data, rev: m.Sequence, created: m.Time}, nil
}

// entry is one value read from the leader: always a put (deletes are
// ErrKeyNotFound), at distance 0 from the latest.
type entry struct {
	bucket, key string
	value       []byte
	rev         uint64
	created     time.Time
}

func (e entry) Bucket() string                  { return e.bucket }
func (e entry) Key() string                     { return e.key }
func (e entry) Value() []byte                   { return e.value }
func (e entry) Revision() uint64                { return e.rev }
func (e entry) Created() time.Time              { return e.created }
func (e entry) Delta() uint64                   { return 0 }
func (e entry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }
