// Package desk is the bridge's application service: it records gate-signed
// decisions, posts them for humans, and turns an accepted answer into exactly
// one signed agentk.approval.v1. The rules are approval's; desk does the
// reading, compare-and-set writing, sealing and publishing around them.
package desk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/mutant"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/store"
)

var (
	// ErrRejected: a decision message that can never be accepted (bad
	// signature, wrong role, expired, malformed). Redelivery cannot fix it.
	ErrRejected = errors.New("desk: decision rejected")
	// ErrBusy: the record kept changing under us; the caller may retry.
	ErrBusy = errors.New("desk: decision busy, try again")
)

// Publisher puts a sealed envelope on the bus with a Nats-Msg-Id.
type Publisher interface {
	Publish(ctx context.Context, env envelope.Envelope, msgID string) error
}

// Notifier shows decisions to humans outside the console (Slack).
type Notifier interface {
	// Post shows a new decision and returns where it was posted.
	Post(ctx context.Context, rec approval.Record) (channel, ts string, err error)
	// Update rewrites a posted decision once it is answered, and again once
	// the deployer's outcome arrived.
	Update(ctx context.Context, rec approval.Record) error
	// PostOutcome replies in the decision's thread with rec.Action and
	// returns the reply's ts.
	PostOutcome(ctx context.Context, rec approval.Record) (ts string, err error)
}

// Deps are the desk's collaborators.
type Deps struct {
	Store     store.Store
	Signer    *envelope.Signer
	Keyring   *envelope.Keyring
	Publisher Publisher
	// Notifier is nil when Slack is not configured.
	Notifier Notifier
	Now      func() time.Time
	Logger   *slog.Logger
	// NewID returns a fresh approval id; random when nil.
	NewID func() string
	// Incidents reads when an incident's alert resolved (the ingester's
	// agentk_incidents); nil: never resolved, and the deployer's own check
	// still refuses.
	Incidents Incidents
}

// Incidents reads the resolve time of an incident's alert: zero while it
// fires or when the incident is unknown.
type Incidents interface {
	ResolvedAt(ctx context.Context, incidentID string) (time.Time, error)
}

// ResolvedAt is when the incident's alert resolved (zero while it fires), for
// the views that must show it.
func (k *Desk) ResolvedAt(ctx context.Context, incidentID string) (time.Time, error) {
	if k.d.Incidents == nil {
		return time.Time{}, nil
	}
	return k.d.Incidents.ResolvedAt(ctx, incidentID)
}

// Desk is safe for concurrent use.
type Desk struct {
	d Deps

	mu     sync.Mutex
	recent []approval.Refusal
	// unpublished holds the decisions whose answer this process accepted
	// and has not yet seen published: RepublishOwn retries them without
	// reading every record.
	unpublished map[string]struct{}
	// posted holds the Slack messages this process posted whose ts it could
	// not record yet: a redelivery of the decision records them instead of
	// posting again. An entry leaves once its ts is recorded (by this
	// process or another bridge's), and at the latest when its decision
	// expires: an expired decision's redelivery is refused before it
	// reaches post, so nothing else would ever remove it (prunePosted).
	posted map[string]slackMessage
}

// New returns a Desk.
func New(d Deps) *Desk {
	if d.NewID == nil {
		d.NewID = randomID
	}
	return &Desk{d: d, unpublished: map[string]struct{}{}, posted: map[string]slackMessage{}}
}

// Now is the desk's clock (the service clock).
func (k *Desk) Now() time.Time { return k.d.Now() }

// Receive verifies a gate-signed decision envelope, records it once and posts
// it. A redelivery of a recorded decision only finishes what is missing (the
// Slack post). ErrRejected for a decision that must not be retried.
func (k *Desk) Receive(ctx context.Context, data []byte) error {
	now := k.d.Now()
	k.prunePosted(now)
	var dec contracts.DecisionV1
	env, err := k.d.Keyring.Open(data, contracts.SubjectDecision, now, &dec)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	rec, err := approval.NewRecord(env, dec, now)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	rec.TraceParent = traceParent(ctx)
	log := k.d.Logger.With("decision_id", dec.DecisionID, "incident_id", dec.IncidentID)
	switch err := k.d.Store.Create(ctx, rec); {
	case errors.Is(err, store.ErrBadKey):
		return fmt.Errorf("%w: %w", ErrRejected, err)
	case errors.Is(err, store.ErrExists):
		// A redelivery, or the gate re-publishing: keep the first record.
	case err != nil:
		return err
	default:
		log.InfoContext(ctx, "decision recorded", "verdict", dec.Verdict, "incident_service", dec.Service, "expires_at", rec.ExpiresAt)
	}
	return k.post(ctx, dec.DecisionID, log)
}

func (k *Desk) post(ctx context.Context, id string, log *slog.Logger) error {
	if k.d.Notifier == nil {
		return nil
	}
	rec, _, err := k.d.Store.Get(ctx, id)
	if err != nil {
		return err
	}
	if rec.SlackTS != "" || rec.Digest == "" {
		k.forgetPosted(id)
		return nil
	}
	ch, ts, ok := k.postedUnrecorded(id)
	if !ok {
		ch, ts, err = k.d.Notifier.Post(ctx, rec)
		if err != nil {
			return fmt.Errorf("desk: post %s: %w", id, err)
		}
	}
	// An answer may have been written since the read above (a fast click
	// in the console): record the ts on the record as it now is, and if it
	// is answered already, show the answer, so that neither the ts nor the
	// update is lost.
	err = ErrBusy
	for range maxAttempts {
		cur, rev, gerr := k.d.Store.Get(ctx, id)
		if gerr != nil {
			err = gerr
			break
		}
		cur.SlackChannel, cur.SlackTS = ch, ts
		if err = k.d.Store.Update(ctx, cur, rev); errors.Is(err, store.ErrConflict) {
			continue
		} else if err != nil {
			break
		}
		k.forgetPosted(id)
		log.InfoContext(ctx, "decision posted to slack", "slack_channel", ch)
		if cur.Action != nil {
			// The deployer was faster than this write: tell its outcome now.
			return k.tell(ctx, cur, *cur.Action, log)
		}
		if cur.Answer != nil {
			if err := k.d.Notifier.Update(ctx, cur); err != nil {
				log.WarnContext(ctx, "slack message not updated", "err", err)
			}
			return nil
		}
		// A resolve that landed before the ts was recorded found no message
		// to rewrite: show it now (read after the ts is written, so one of
		// the two sees the other).
		k.showIfResolved(ctx, cur, log)
		return nil
	}
	// The message is out but its ts is not on the record (the store lost
	// its leader, make test-cluster): every click on it would be refused as
	// "not recorded yet" for as long as the record lacks it. So the
	// delivery is retried, and the retry records this ts rather than post
	// a second message.
	k.rememberPosted(id, slackMessage{channel: ch, ts: ts, expires: rec.ExpiresAt})
	log.WarnContext(ctx, "slack message posted but not recorded yet; retried", "slack_channel", ch, "err", err)
	return fmt.Errorf("desk: record slack message %s of %s: %w", ts, id, err)
}

// slackMessage is where a decision was posted, and when the decision
// expires.
type slackMessage struct {
	channel, ts string
	expires     time.Time
}

// rememberPosted keeps a posted message whose ts the record lacks, for the
// redelivery to record (mutant bridge.posted_unrecorded: forgotten, the
// redelivery posts again and the clicks on the first message are refused).
func (k *Desk) rememberPosted(id string, m slackMessage) {
	if mutant.Off(mutant.BridgePostedUnrecorded) {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.posted[id] = m
}

// prunePosted forgets the posted messages whose decision expired by now:
// its redelivery is refused (the envelope expired), so no post will record
// them, and no click on them is accepted any more.
func (k *Desk) prunePosted(now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, m := range k.posted {
		if !now.Before(m.expires) {
			delete(k.posted, id)
		}
	}
}

func (k *Desk) postedUnrecorded(id string) (ch, ts string, ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	m, ok := k.posted[id]
	return m.channel, m.ts, ok
}

func (k *Desk) forgetPosted(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.posted, id)
}

// ReceiveAction verifies a deployer-signed agentk.action.v1, keeps it with
// its decision, posts the outcome and the recovery verdict in the decision's
// Slack thread, and updates the message to show it. Each step is recorded,
// so a redelivery finishes what is missing and posts nothing twice.
// ErrRejected for a message that must not be retried. An action for a
// decision this bridge never recorded is logged and dropped.
func (k *Desk) ReceiveAction(ctx context.Context, data []byte) error {
	now := k.d.Now()
	var act contracts.ActionV1
	if _, err := k.d.Keyring.Open(data, contracts.SubjectAction, now, &act); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if act.DecisionID == "" || act.ActionID == "" {
		return fmt.Errorf("%w: action names no decision or action id", ErrRejected)
	}
	log := k.d.Logger.With("decision_id", act.DecisionID, "incident_id", act.IncidentID, "action_id", act.ActionID)
	rec, err := k.keepAction(ctx, act)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrBadKey) {
		log.WarnContext(ctx, "action for a decision this bridge never recorded", "outcome", act.Outcome)
		return nil
	}
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "action recorded", "outcome", act.Outcome)
	if k.d.Notifier == nil || rec.SlackTS == "" {
		return nil
	}
	// Acted on with its ts recorded (by another bridge's redelivery, when
	// this one posted it): nothing here will record it again.
	k.forgetPosted(act.DecisionID)
	return k.tell(ctx, rec, act, log)
}

// tell posts act in rec's thread unless it was, and updates the message to
// show rec.Action unless it does; each step is recorded once done.
func (k *Desk) tell(ctx context.Context, rec approval.Record, act contracts.ActionV1, log *slog.Logger) error {
	if !rec.IsTold(act.ActionID) {
		told := rec
		told.Action = &act
		if _, err := k.d.Notifier.PostOutcome(ctx, told); err != nil {
			return fmt.Errorf("desk: post outcome %s: %w", act.ActionID, err)
		}
		if err := k.mark(ctx, act.DecisionID, func(r approval.Record) approval.Record { return r.WithTold(act.ActionID) }); err != nil {
			// Posted but not marked: a redelivery may post it again, which
			// is better than a thread that never learns the outcome.
			log.WarnContext(ctx, "outcome posted but not recorded", "err", err)
		}
	}
	if rec.Action != nil && rec.Shown != rec.Action.ActionID {
		if err := k.d.Notifier.Update(ctx, rec); err != nil {
			return fmt.Errorf("desk: update message with outcome %s: %w", act.ActionID, err)
		}
		shown := rec.Action.ActionID
		if err := k.mark(ctx, act.DecisionID, func(r approval.Record) approval.Record { r.Shown = shown; return r }); err != nil {
			log.WarnContext(ctx, "message updated but not recorded", "err", err)
		}
	}
	return nil
}

// keepAction writes act into its decision's record (compare-and-set).
func (k *Desk) keepAction(ctx context.Context, act contracts.ActionV1) (approval.Record, error) {
	for range maxAttempts {
		rec, rev, err := k.d.Store.Get(ctx, act.DecisionID)
		if err != nil {
			return approval.Record{}, err
		}
		next := rec.WithAction(act)
		if next.Action == rec.Action {
			return rec, nil
		}
		if err := k.d.Store.Update(ctx, next, rev); errors.Is(err, store.ErrConflict) {
			continue
		} else if err != nil {
			return approval.Record{}, err
		}
		return next, nil
	}
	return approval.Record{}, fmt.Errorf("%w: %s", ErrBusy, act.DecisionID)
}

// mark applies f to the stored record (compare-and-set).
func (k *Desk) mark(ctx context.Context, id string, f func(approval.Record) approval.Record) error {
	for range maxAttempts {
		rec, rev, err := k.d.Store.Get(ctx, id)
		if err != nil {
			return err
		}
		if err := k.d.Store.Update(ctx, f(rec), rev); !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return fmt.Errorf("%w: %s", ErrBusy, id)
}

// maxAttempts bounds compare-and-set retries under contention.
const maxAttempts = 8

// Answer applies one human's answer. On acceptance it returns the updated
// record (its Answer holds the sealed approval, already published unless the
// bus failed, in which case Republish finishes it). On refusal it records the
// reason with the decision and returns the approval sentinel wrapped.
func (k *Desk) Answer(ctx context.Context, req approval.Request) (approval.Record, error) {
	log := k.d.Logger.With("decision_id", req.DecisionID, "channel", req.Channel, "approver", req.Approver)
	for range maxAttempts {
		now := k.d.Now()
		rec, rev, err := k.d.Store.Get(ctx, req.DecisionID)
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrBadKey) {
			err = fmt.Errorf("%w: %s", approval.ErrNotFound, req.DecisionID)
			k.refuseUnattributed(req, err, now)
			return approval.Record{}, err
		}
		if err != nil {
			return approval.Record{}, err
		}
		reason := approval.Check(rec, req, now)
		if errors.Is(reason, approval.ErrMessagePending) && k.awaitMessage(ctx, req.DecisionID) {
			continue // the ts is recorded now: check the click against it
		}
		var confirmed time.Time
		if reason == nil {
			resolved, err := k.ResolvedAt(ctx, rec.Decision.IncidentID)
			if err != nil {
				return approval.Record{}, fmt.Errorf("%w: incident %s: %w", ErrBusy, rec.Decision.IncidentID, err)
			}
			confirmed, reason = approval.CheckResolved(rec, req, resolved)
		}
		if reason != nil {
			log.WarnContext(ctx, "answer refused", "reason", reason.Error(), "identity", req.Identity)
			if err := k.d.Store.Update(ctx, approval.Refuse(rec, req, reason, now), rev); errors.Is(err, store.ErrConflict) {
				continue
			} else if err != nil {
				log.ErrorContext(ctx, "refusal not recorded", "err", err)
			}
			return rec, reason
		}
		req.ApprovalID = k.d.NewID()
		payload, ttl := approval.Approval(rec, req, confirmed, now)
		sealed, err := k.d.Signer.SealJSON(contracts.SubjectApproval, payload, now, ttl)
		if err != nil {
			return approval.Record{}, err
		}
		next := approval.Accept(rec, req, sealed, now)
		if err := k.d.Store.Update(ctx, next, rev); errors.Is(err, store.ErrConflict) {
			continue // someone else wrote first; Check will now see their answer
		} else if err != nil {
			return approval.Record{}, err
		}
		log.InfoContext(ctx, "answer accepted", "answer", req.Answer, "approval_id", req.ApprovalID)
		countAnswer(ctx, req)
		k.setUnpublished(req.DecisionID, true)
		next = k.publish(ctx, next, log)
		if k.d.Notifier != nil && next.SlackTS != "" && req.Channel != contracts.ChannelSlack {
			if err := k.d.Notifier.Update(ctx, next); err != nil {
				log.WarnContext(ctx, "slack message not updated", "err", err)
			}
		}
		return next, nil
	}
	return approval.Record{}, fmt.Errorf("%w: %s", ErrBusy, req.DecisionID)
}

// messageWait bounds how long a Slack click waits for its decision's
// message ts to be recorded (post writes it right after chat.postMessage
// answers); the interaction handler's budget bounds it too.
const messageWait = 2 * time.Second

// awaitMessage waits until the record of id holds its Slack message's ts,
// ctx ends or messageWait passes, watching the record (its value when the
// watch starts, then each write: the ts recorded between the caller's read
// and the watch is seen at once); it reports whether the ts is there. A
// click that raced the post is then checked, not refused.
func (k *Desk) awaitMessage(ctx context.Context, id string) bool {
	ctx, cancel := context.WithTimeout(ctx, messageWait)
	defer cancel()
	recs, err := k.d.Store.Watch(ctx, id)
	if err != nil {
		k.d.Logger.WarnContext(ctx, "decision not watched for its slack message", "decision_id", id, "err", err)
		return false
	}
	for {
		select {
		case <-ctx.Done():
			return false
		case rec, ok := <-recs:
			if !ok {
				return false
			}
			if rec.SlackTS != "" {
				return true
			}
		}
	}
}

// publish sends the record's approval with MsgID approval.<decision id> (so
// JetStream drops a second one) and marks it published.
func (k *Desk) publish(ctx context.Context, rec approval.Record, log *slog.Logger) approval.Record {
	ctx, span := approvalSpan(ctx, rec)
	defer span.End()
	env, err := envelope.Parse(rec.Answer.Approval)
	if err != nil {
		log.ErrorContext(ctx, "stored approval unreadable", "err", err)
		return rec
	}
	if err := k.d.Publisher.Publish(ctx, env, "approval."+rec.DecisionID); err != nil {
		log.ErrorContext(ctx, "approval not published; will retry", "err", err)
		return rec
	}
	for range maxAttempts {
		cur, rev, err := k.d.Store.Get(ctx, rec.DecisionID)
		if err != nil || cur.Answer == nil {
			break
		}
		cur.Answer.Published = true
		if err := k.d.Store.Update(ctx, cur, rev); err == nil {
			k.setUnpublished(rec.DecisionID, false)
			return cur
		} else if !errors.Is(err, store.ErrConflict) {
			break
		}
	}
	log.WarnContext(ctx, "approval published but not marked; a restart re-publishes it (deduplicated)")
	rec.Answer.Published = true
	return rec
}

// Republish publishes every accepted answer not yet marked published (a crash
// or bus failure between accepting and publishing, in this process or in
// another bridge). It reads every record: the bridge runs it at start and
// now and then; RepublishOwn is the cheap retry. The MsgID makes a repeat
// harmless.
func (k *Desk) Republish(ctx context.Context) error {
	recs, err := k.d.Store.List(ctx)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.Answer != nil && !r.Answer.Published {
			k.publish(ctx, r, k.d.Logger.With("decision_id", r.DecisionID))
		}
	}
	return nil
}

// RepublishOwn publishes the answers this process accepted and has not seen
// published (the bus failed, or the mark did not stick), reading only their
// records: its cost is what is pending, not the history of decisions.
func (k *Desk) RepublishOwn(ctx context.Context) error {
	k.mu.Lock()
	ids := make([]string, 0, len(k.unpublished))
	for id := range k.unpublished {
		ids = append(ids, id)
	}
	k.mu.Unlock()
	var errs []error
	for _, id := range ids {
		r, _, err := k.d.Store.Get(ctx, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r.Answer == nil || r.Answer.Published {
			k.setUnpublished(id, false)
			continue
		}
		k.publish(ctx, r, k.d.Logger.With("decision_id", id))
	}
	return errors.Join(errs...)
}

// setUnpublished records whether decision id's accepted answer still waits
// for its publish.
func (k *Desk) setUnpublished(id string, pending bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if pending {
		k.unpublished[id] = struct{}{}
	} else {
		delete(k.unpublished, id)
	}
}

// Refuse records a refusal decided before Answer could run (a replayed Slack
// request), with the decision when it exists.
func (k *Desk) Refuse(ctx context.Context, req approval.Request, reason error) {
	now := k.d.Now()
	k.d.Logger.WarnContext(ctx, "answer refused", "decision_id", req.DecisionID, "channel", req.Channel,
		"identity", req.Identity, "reason", reason.Error())
	for range maxAttempts {
		rec, rev, err := k.d.Store.Get(ctx, req.DecisionID)
		if err != nil {
			k.refuseUnattributed(req, reason, now)
			return
		}
		if err := k.d.Store.Update(ctx, approval.Refuse(rec, req, reason, now), rev); !errors.Is(err, store.ErrConflict) {
			return
		}
	}
}

// RefuseRequest records a request refused before it could name a decision
// (forged signature, stale timestamp, unreadable payload). It is not written
// to any record: nothing in it can be trusted.
func (k *Desk) RefuseRequest(channel string, reason error) {
	now := k.d.Now()
	k.d.Logger.Warn("request refused", "channel", channel, "reason", reason.Error())
	k.remember(approval.Refusal{At: now.UTC(), Channel: channel, Reason: reason.Error()})
}

func (k *Desk) refuseUnattributed(req approval.Request, reason error, now time.Time) {
	k.d.Logger.Warn("answer refused", "decision_id", req.DecisionID, "channel", req.Channel, "reason", reason.Error())
	k.remember(approval.Refusal{At: now.UTC(), Approver: req.Approver, Identity: req.Identity,
		Channel: req.Channel, Answer: req.Answer, Reason: reason.Error()})
}

const maxRecent = 100

func (k *Desk) remember(r approval.Refusal) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.recent = append(k.recent, r)
	if len(k.recent) > maxRecent {
		k.recent = k.recent[len(k.recent)-maxRecent:]
	}
}

// RecentRefusals returns refusals not tied to a recorded decision, oldest first.
func (k *Desk) RecentRefusals() []approval.Refusal {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]approval.Refusal(nil), k.recent...)
}

// Get returns one record.
func (k *Desk) Get(ctx context.Context, id string) (approval.Record, error) {
	rec, _, err := k.d.Store.Get(ctx, id)
	return rec, err
}

// List returns every record.
func (k *Desk) List(ctx context.Context) ([]approval.Record, error) { return k.d.Store.List(ctx) }

func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "apv_" + hex.EncodeToString(b[:])
}

// ShowResolves rewrites the Slack message of every open, posted decision
// whose incident's alert resolved and whose message does not show that
// resolve yet (ShowResolved). The bridge runs it at start and now and then,
// so a resolve missed while it was down, or a rewrite Slack refused, is
// shown later: the record remembers what the message shows.
func (k *Desk) ShowResolves(ctx context.Context) error {
	if k.d.Incidents == nil {
		return nil
	}
	return k.showResolves(ctx, func(r approval.Record) (time.Time, error) {
		return k.d.Incidents.ResolvedAt(ctx, r.Decision.IncidentID)
	})
}

// ShowResolved rewrites the Slack message of every open, posted decision of
// incidentID to say that its alert resolved at at and that an approval now
// needs re-confirmation (slackmsg's "Approve anyway (alert resolved)").
func (k *Desk) ShowResolved(ctx context.Context, incidentID string, at time.Time) error {
	return k.showResolves(ctx, func(r approval.Record) (time.Time, error) {
		if r.Decision.IncidentID != incidentID {
			return time.Time{}, nil
		}
		return at, nil
	})
}

// showResolves shows, on every open posted message, the resolve time
// resolvedAt gives for its record (zero: none).
func (k *Desk) showResolves(ctx context.Context, resolvedAt func(approval.Record) (time.Time, error)) error {
	if k.d.Notifier == nil {
		return nil
	}
	recs, err := k.d.Store.List(ctx)
	if err != nil {
		return err
	}
	now := k.d.Now()
	var errs []error
	for _, r := range recs {
		if !showsFiring(r, now) {
			continue
		}
		at, err := resolvedAt(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !at.IsZero() && !r.ResolvedAt.Equal(at) {
			errs = append(errs, k.showResolved(ctx, r, at))
		}
	}
	return errors.Join(errs...)
}

// showIfResolved shows the resolve of r's incident, if it resolved.
func (k *Desk) showIfResolved(ctx context.Context, r approval.Record, log *slog.Logger) {
	at, err := k.ResolvedAt(ctx, r.Decision.IncidentID)
	if err == nil && !at.IsZero() && showsFiring(r, k.d.Now()) {
		err = k.showResolved(ctx, r, at)
	}
	if err != nil {
		log.WarnContext(ctx, "resolved alert not shown in slack; the sweep retries", "err", err)
	}
}

// showsFiring: r is posted to Slack and still takes an approval, so its
// message must follow the alert.
func showsFiring(r approval.Record, now time.Time) bool {
	return r.SlackTS != "" && r.StatusAt(now) == approval.StatusOpen
}

// showResolved rewrites r's message first, then records that it shows the
// resolve (a repeated rewrite is harmless; a recorded one that never
// happened would be lost). An answer that landed meanwhile is shown again,
// so the rewrite never hides it.
func (k *Desk) showResolved(ctx context.Context, r approval.Record, at time.Time) error {
	log := k.d.Logger.With("decision_id", r.DecisionID, "incident_id", r.Decision.IncidentID)
	r.ResolvedAt = at
	if err := k.d.Notifier.Update(ctx, r); err != nil {
		return fmt.Errorf("desk: show resolve of %s: %w", r.DecisionID, err)
	}
	var cur approval.Record
	if err := k.mark(ctx, r.DecisionID, func(s approval.Record) approval.Record { s.ResolvedAt = at; cur = s; return s }); err != nil {
		return fmt.Errorf("desk: message of %s shows the resolve, not recorded: %w", r.DecisionID, err)
	}
	log.InfoContext(ctx, "slack message shows the alert resolved", "resolved_at", at)
	if cur.Answer != nil {
		return k.d.Notifier.Update(ctx, cur)
	}
	return nil
}
