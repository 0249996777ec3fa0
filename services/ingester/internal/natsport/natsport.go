// Package natsport adapts the incident index to the fabric: a KV over the
// agentk_incidents JetStream bucket, and a Publisher that seals each AlertV1
// with the ingester's key and returns only after JetStream acknowledged it.
package natsport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/services/ingester/internal/incidents"

	"github.com/nats-io/nats.go/jetstream"
)

// KV is incidents.KV over a JetStream key-value bucket.
type KV struct{ kv jetstream.KeyValue }

// NewKV wraps a bucket.
func NewKV(kv jetstream.KeyValue) *KV { return &KV{kv: kv} }

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

// Publish seals a (a.JSON as it is, when the index encoded it) and stores it with Nats-Msg-Id msgID; it returns after the
// JetStream acknowledgement (fresh: stored now, not a duplicate of msgID), or
// the bus error.
func (p *Publisher) Publish(ctx context.Context, a incidents.Alert, msgID string) (bool, error) {
	payload := a.JSON
	if payload == nil {
		b, err := json.Marshal(a.AlertV1)
		if err != nil {
			return false, fmt.Errorf("ingester: encode alert: %w", err)
		}
		payload = b
	}
	env, err := p.signer.Seal(contracts.SubjectAlert, payload, p.now(), 0)
	if err != nil {
		return false, fmt.Errorf("ingester: seal: %w", err)
	}
	fresh, err := p.conn.PublishFresh(ctx, contracts.SubjectAlert, bus.Out{Envelope: env, MsgID: msgID}, nil)
	if err != nil {
		if bus.IsContent(err) {
			return false, fmt.Errorf("ingester: publish %s: %w: %w", msgID, incidents.ErrRefused, err)
		}
		return false, fmt.Errorf("ingester: publish %s: %w", msgID, err)
	}
	return fresh, nil
}
