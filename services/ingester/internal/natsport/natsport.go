// Package natsport adapts the incident index to the fabric: a KV over the
// agentk_incidents JetStream bucket, and a Publisher that seals each AlertV1
// with the ingester's key and returns only after JetStream acknowledged it.
package natsport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/services/ingester/internal/incidents"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// KV is incidents.KV over a JetStream key-value bucket.
type KV struct {
	kv     jetstream.KeyValue
	js     jetstream.JetStream
	stream jetstream.Stream
	// put is the subject prefix of the bucket's keys (no JetStream domain).
	put string
}

// NewKV wraps a bucket of js.
func NewKV(ctx context.Context, js jetstream.JetStream, kv jetstream.KeyValue) (*KV, error) {
	s, err := js.Stream(ctx, "KV_"+kv.Bucket())
	if err != nil {
		return nil, fmt.Errorf("ingester: bucket %s: %w", kv.Bucket(), err)
	}
	return &KV{kv: kv, js: js, stream: s, put: "$KV." + kv.Bucket() + "."}, nil
}

// KV-Operation header values of a delete and a purge marker (nats.go's).
const (
	opHeader = "KV-Operation"
	opDelete = "DEL"
	opPurge  = "PURGE"
)

// CreateAsync sends the write of a key that never had a value (JetStream
// checks that the key's subject holds no message, the check kv.Create makes
// first) and returns at once. When that check fails (the key exists, or
// was deleted) or the write is not acknowledged, the Pending reads the
// key's last message: a live key is ErrExists, a deleted one is written at
// its delete marker's revision. That is kv.Create's second and third
// steps, so that a key that existed costs no round trip more than Create.
func (k *KV) CreateAsync(ctx context.Context, key string, value []byte) incidents.Pending[uint64] {
	wait := k.CreateNewAsync(ctx, key, value)
	return func() (uint64, error) {
		rev, err := wait()
		if errors.Is(err, incidents.ErrUsed) {
			return k.Recreate(ctx, key, value)
		}
		return rev, err
	}
}

// CreateNewAsync is CreateAsync's first send alone; its Pending returns
// incidents.ErrUsed when that write was refused (the key had a value) or
// not acknowledged.
func (k *KV) CreateNewAsync(ctx context.Context, key string, value []byte) incidents.Pending[uint64] {
	m := nats.NewMsg(k.put + key)
	m.Data = value
	m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, "0")
	paf, err := k.js.PublishMsgAsync(m)
	return func() (uint64, error) {
		if err == nil {
			select {
			case ack := <-paf.Ok():
				return ack.Sequence, nil
			case <-paf.Err():
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		return 0, incidents.ErrUsed
	}
}

// Recreate is Create after CreateNewAsync returned incidents.ErrUsed: it
// reads the key's last message; a live key is ErrExists, a deleted one is
// written at its delete marker's revision, and a key with no message (the
// first write failed for another reason) is created.
func (k *KV) Recreate(ctx context.Context, key string, value []byte) (uint64, error) {
	m, err := k.stream.GetLastMsgForSubject(ctx, k.put+key)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return k.Create(ctx, key, value) // the write failed for another reason
	}
	if err != nil {
		return 0, err
	}
	if op := m.Header.Get(opHeader); op != opDelete && op != opPurge {
		return 0, incidents.ErrExists
	}
	rev, err := k.kv.Update(ctx, key, value, m.Sequence)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return 0, incidents.ErrExists // re-created meanwhile
	}
	return rev, err
}

// Get returns incidents.ErrNotFound for a missing or deleted key.
func (k *KV) Get(ctx context.Context, key string) (incidents.Entry, error) {
	e, err := k.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return incidents.Entry{}, incidents.ErrNotFound
	}
	if err != nil {
		return incidents.Entry{}, err
	}
	return incidents.Entry{Value: e.Value(), Revision: e.Revision()}, nil
}

// Create returns incidents.ErrExists when the key is live.
func (k *KV) Create(ctx context.Context, key string, value []byte) (uint64, error) {
	rev, err := k.kv.Create(ctx, key, value)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return 0, incidents.ErrExists
	}
	return rev, err
}

// Update returns incidents.ErrConflict when the key moved past rev.
func (k *KV) Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	n, err := k.kv.Update(ctx, key, value, rev)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return 0, incidents.ErrConflict
	}
	return n, err
}

// Delete places a delete marker on key.
func (k *KV) Delete(ctx context.Context, key string) error { return k.kv.Delete(ctx, key) }

// Keys lists the live keys matching filter.
func (k *KV) Keys(ctx context.Context, filter string) ([]string, error) {
	l, err := k.kv.ListKeysFiltered(ctx, filter)
	if err != nil {
		if errors.Is(err, jetstream.ErrNoKeysFound) {
			return nil, nil
		}
		return nil, err
	}
	defer func() { _ = l.Stop() }()
	var keys []string
	for key := range l.Keys() {
		keys = append(keys, key)
	}
	return keys, nil
}

// Publisher seals alerts as the ingester and publishes them on
// contracts.SubjectAlert.
type Publisher struct {
	conn   *bus.Conn
	signer *envelope.Signer
	now    func() time.Time
}

// NewPublisher returns a Publisher over conn signing with signer at now.
func NewPublisher(conn *bus.Conn, signer *envelope.Signer, now func() time.Time) *Publisher {
	return &Publisher{conn: conn, signer: signer, now: now}
}

// Publish seals a (a.JSON as it is, when the index encoded it), unless
// Prepare sealed it already, and sends it
// with Nats-Msg-Id msgID; the Pending waits for the JetStream
// acknowledgement (fresh: stored now, not a duplicate of msgID), or the bus
// error.
func (p *Publisher) Publish(ctx context.Context, a incidents.Alert, msgID string) incidents.Pending[bool] {
	env, sealed := a.Sealed.(envelope.Envelope)
	if !sealed {
		var err error
		if env, err = p.seal(a); err != nil {
			return func() (bool, error) { return false, err }
		}
	}
	wait := p.conn.PublishAsync(ctx, contracts.SubjectAlert, bus.Out{Envelope: env, MsgID: msgID}, nil)
	return func() (bool, error) {
		fresh, err := wait()
		switch {
		case err != nil && bus.IsContent(err):
			return false, fmt.Errorf("ingester: publish %s: %w: %w", msgID, incidents.ErrRefused, err)
		case err != nil:
			return false, fmt.Errorf("ingester: publish %s: %w", msgID, err)
		}
		return fresh, nil
	}
}

// Prepare seals a ahead of its Publish (incidents.Preparer).
func (p *Publisher) Prepare(a incidents.Alert, _ string) (incidents.Alert, error) {
	env, err := p.seal(a)
	if err != nil {
		return incidents.Alert{}, err
	}
	a.Sealed = env
	return a, nil
}

// seal is a's envelope, sealing a.JSON as it is when the index encoded it.
func (p *Publisher) seal(a incidents.Alert) (envelope.Envelope, error) {
	payload := a.JSON
	if payload == nil {
		b, err := incidents.MarshalAlert(a.AlertV1)
		if err != nil {
			return envelope.Envelope{}, fmt.Errorf("ingester: encode alert: %w", err)
		}
		payload = b
	}
	env, err := p.signer.Seal(contracts.SubjectAlert, payload, p.now(), 0)
	if err != nil {
		return envelope.Envelope{}, fmt.Errorf("ingester: seal: %w", err)
	}
	return env, nil
}
