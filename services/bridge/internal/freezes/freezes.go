// Package freezes is the bridge's freeze desk: an approver sets or lifts a
// freeze on one service or on every service, and the bridge seals it as a
// FreezeV1 (agentk.freeze.v1) into KV agentk_freezes, where the gate and the
// deployer read and verify it. The bucket keeps every revision: the history
// is the freezes' audit trail.
package freezes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

// MinFreeze is the shortest freeze accepted.
const MinFreeze = time.Minute

var (
	// ErrInvalid: a scope, reason, approver or duration the bridge will not sign.
	ErrInvalid = errors.New("freezes: invalid request")
	// ErrNotFrozen: lifting a scope with no active freeze.
	ErrNotFrozen = errors.New("freezes: not frozen")
	// ErrUnavailable: the bucket could not be read or written.
	ErrUnavailable = errors.New("freezes: store unavailable")
)

// KV is the part of a jetstream.KeyValue the desk uses.
type KV interface {
	Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error)
	Put(ctx context.Context, key string, value []byte) (uint64, error)
	ListKeys(ctx context.Context, opts ...jetstream.WatchOpt) (jetstream.KeyLister, error)
}

// Desk sets, lifts and lists freezes.
type Desk struct {
	KV      KV
	Signer  *envelope.Signer
	Keyring *envelope.Keyring
	Now     func() time.Time
}

// Request is one approver's freeze or unfreeze.
type Request struct {
	Scope    string
	Reason   string
	By       string
	Channel  string
	Duration time.Duration
}

// Validate reports every problem with a freeze request; lift requests need
// no duration.
func (r Request) Validate(lift bool) error {
	var errs []string
	if !contracts.ValidFreezeScope(r.Scope) {
		errs = append(errs, fmt.Sprintf("scope %q is neither %s nor a service name", r.Scope, contracts.FreezeGlobal))
	}
	if strings.TrimSpace(r.Reason) == "" {
		errs = append(errs, "a reason is required")
	}
	if len(r.Reason) > 500 {
		errs = append(errs, "reason longer than 500 characters")
	}
	if r.By == "" {
		errs = append(errs, "no approver")
	}
	if !lift && (r.Duration < MinFreeze || r.Duration > contracts.MaxFreeze) {
		errs = append(errs, fmt.Sprintf("duration %s outside [%s, %s]", r.Duration, MinFreeze, contracts.MaxFreeze))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(errs, "; "))
	}
	return nil
}

// Set seals an active freeze for r.Scope until now + r.Duration. A new freeze
// replaces the scope's previous one (the history keeps it).
func (d *Desk) Set(ctx context.Context, r Request) (contracts.FreezeV1, error) {
	if err := r.Validate(false); err != nil {
		return contracts.FreezeV1{}, err
	}
	now := d.Now().UTC()
	f := contracts.FreezeV1{FreezeID: "freeze-" + randomID(), Scope: r.Scope, Active: true, Reason: strings.TrimSpace(r.Reason),
		By: r.By, Channel: r.Channel, At: now, ExpiresAt: now.Add(r.Duration)}
	return f, d.put(ctx, f)
}

// Lift seals an unfreeze for r.Scope. ErrNotFrozen when nothing holds there.
func (d *Desk) Lift(ctx context.Context, r Request) (contracts.FreezeV1, error) {
	if err := r.Validate(true); err != nil {
		return contracts.FreezeV1{}, err
	}
	now := d.Now().UTC()
	cur, found, err := d.Get(ctx, r.Scope)
	if err != nil {
		return contracts.FreezeV1{}, err
	}
	if !found || !cur.HoldsAt(now) {
		return contracts.FreezeV1{}, fmt.Errorf("%w: %s", ErrNotFrozen, r.Scope)
	}
	f := contracts.FreezeV1{FreezeID: "unfreeze-" + randomID(), Scope: r.Scope, Active: false, Reason: strings.TrimSpace(r.Reason),
		By: r.By, Channel: r.Channel, At: now, ExpiresAt: now, Lifts: cur.FreezeID}
	return f, d.put(ctx, f)
}

func (d *Desk) put(ctx context.Context, f contracts.FreezeV1) error {
	env, err := d.Signer.SealJSON(contracts.SubjectFreeze, f, f.At, 0)
	if err != nil {
		return fmt.Errorf("%w: seal: %v", ErrUnavailable, err)
	}
	if _, err := d.KV.Put(ctx, contracts.FreezeKey(f.Scope), env.Marshal()); err != nil {
		return fmt.Errorf("%w: put %s: %v", ErrUnavailable, f.Scope, err)
	}
	return nil
}

// Get returns the latest verified value of scope.
func (d *Desk) Get(ctx context.Context, scope string) (contracts.FreezeV1, bool, error) {
	e, err := d.KV.Get(ctx, contracts.FreezeKey(scope))
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return contracts.FreezeV1{}, false, nil
	}
	if err != nil {
		return contracts.FreezeV1{}, false, fmt.Errorf("%w: get %s: %v", ErrUnavailable, scope, err)
	}
	var f contracts.FreezeV1
	if _, err := d.Keyring.Open(e.Value(), contracts.SubjectFreeze, d.Now(), &f); err != nil {
		return contracts.FreezeV1{}, false, fmt.Errorf("%w: verify %s: %v", ErrUnavailable, scope, err)
	}
	return f, true, nil
}

// List returns the latest value of every scope, sorted by scope.
func (d *Desk) List(ctx context.Context) ([]contracts.FreezeV1, error) {
	kl, err := d.KV.ListKeys(ctx)
	if err != nil {
		if errors.Is(err, jetstream.ErrNoKeysFound) {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: keys: %v", ErrUnavailable, err)
	}
	defer func() { _ = kl.Stop() }()
	var out []contracts.FreezeV1
	for k := range kl.Keys() {
		f, found, err := d.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
	return out, nil
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
