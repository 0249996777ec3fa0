package approval

import (
	"errors"
	"fmt"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/mutant"
)

// Errors. Each refusal has its own sentinel; its text is the reason recorded
// and shown to the human.
var (
	ErrConfig          = errors.New("approval: configuration")
	ErrInvalidDecision = errors.New("approval: invalid decision")
	ErrNotFound        = errors.New("approval: no such decision")
	ErrBadAnswer       = errors.New("approval: answer must be approve or deny")
	ErrBadChannel      = errors.New("approval: channel must be slack, web or cli")
	ErrUnknownApprover = errors.New("approval: not a configured approver")
	ErrReplay          = errors.New("approval: replayed request")
	ErrAlreadyAnswered = errors.New("approval: decision already answered")
	ErrGateDenied      = errors.New("approval: the gate denied this decision; there is nothing to approve")
	ErrExpired         = errors.New("approval: decision expired")
	ErrDigestMismatch  = errors.New("approval: answer is for another version of the decision")
	// ErrWrongMessage: a Slack click whose button names a decision that was
	// not posted in the message clicked (a forged or copied button value).
	ErrWrongMessage = errors.New("approval: the Slack message clicked is not this decision's message")
	// ErrMessagePending: a Slack click on a decision whose message's ts is
	// not recorded yet (the click raced chat.postMessage's answer). The desk
	// waits a moment for the record before it refuses with this.
	ErrMessagePending = errors.New("approval: the decision's Slack message is not recorded yet; try again in a moment")
	// ErrResolved: the incident's alert resolved and the approver did not
	// answer from a view that showed the resolve.
	ErrResolved = errors.New("approval: the alert has resolved since the decision")
)

// NewRecord builds the record for a gate-verified decision envelope. It
// refuses a decision that cannot be answered safely: no id, or no expiry.
func NewRecord(env envelope.Envelope, dec contracts.DecisionV1, now time.Time) (Record, error) {
	if dec.DecisionID == "" {
		return Record{}, fmt.Errorf("%w: no decision id", ErrInvalidDecision)
	}
	exp := env.ExpiresBy(dec.ExpiresAt)
	if exp.IsZero() {
		// Unknown fails closed: an answer must expire no later than its decision.
		return Record{}, fmt.Errorf("%w: %s has no expiry", ErrInvalidDecision, dec.DecisionID)
	}
	return Record{
		DecisionID: dec.DecisionID,
		Envelope:   env.Marshal(),
		Digest:     env.Digest(),
		Decision:   dec,
		ExpiresAt:  exp.UTC(),
		ReceivedAt: now.UTC(),
	}, nil
}

// Request is one human's answer as an adapter understood it.
type Request struct {
	DecisionID string
	// Digest, when set (Slack buttons carry it), must be the record's digest.
	Digest string
	Answer string
	// Approver is the resolved approver name; empty when the identity did not
	// map to one.
	Approver string
	// Identity is what the request claimed to be, for the record (slack:U123).
	Identity   string
	Channel    string
	RequestID  string
	ApprovalID string
	// ResolvedSeen is the resolve time of the incident's alert that the
	// human was shown when answering (the console renders it into the form);
	// zero when the view showed the alert firing.
	ResolvedSeen time.Time
	// SlackChannel and SlackTS locate the Slack message a click was made on
	// (set for the slack channel only): a click counts only for the decision
	// that message was posted for (Record.SlackChannel, Record.SlackTS).
	SlackChannel string
	SlackTS      string
}

// checkMessage refuses a Slack click made on a message that was not posted
// for rec: the button's value names the decision, the message says which
// decision the human was shown, and the two must agree. A decision whose
// message is not recorded yet takes no click: unknown fails closed.
func checkMessage(rec Record, req Request) error {
	if req.Channel != contracts.ChannelSlack || mutant.Off(mutant.BridgeSlackMessage) {
		return nil
	}
	if rec.SlackTS == "" {
		return fmt.Errorf("%w: %s", ErrMessagePending, rec.DecisionID)
	}
	if req.SlackTS != rec.SlackTS || req.SlackChannel != rec.SlackChannel {
		return fmt.Errorf("%w: click on message %s in %s, %s was posted as %s in %s",
			ErrWrongMessage, req.SlackTS, req.SlackChannel, rec.DecisionID, rec.SlackTS, rec.SlackChannel)
	}
	return nil
}

// CheckResolved refuses an approval of an incident whose alert resolved at
// resolvedAt unless the human answered from a view that showed that resolve.
// A denial is never refused for it. It returns the resolve time to carry in
// the approval (zero: nothing to confirm).
func CheckResolved(rec Record, req Request, resolvedAt time.Time) (time.Time, error) {
	if resolvedAt.IsZero() || req.Answer != contracts.AnswerApprove {
		return time.Time{}, nil
	}
	// The views show the resolve to the second (RFC 3339); a human who typed
	// what they were shown has seen it.
	if req.ResolvedSeen.Before(resolvedAt.Truncate(time.Second)) {
		at := resolvedAt.UTC().Format(time.RFC3339)
		return time.Time{}, fmt.Errorf("%w: incident %s resolved at %s; %s", ErrResolved, rec.Decision.IncidentID, at, confirmHint(req.Channel, rec.DecisionID, at))
	}
	return resolvedAt, nil
}

// confirmHint says how to approve again after the resolve, in the channel
// the human answered from: each channel has its own way to show that the
// human saw the resolve.
func confirmHint(channel, decisionID, at string) string {
	switch channel {
	case contracts.ChannelCLI:
		return "to approve anyway, run: agentk approve --confirm-resolved " + at + " " + decisionID
	case contracts.ChannelSlack:
		return "to approve anyway, click \"Approve anyway (alert resolved)\" on the rewritten message (or run agentk approve --confirm-resolved " + at + " " + decisionID + ")"
	}
	return "to approve anyway, approve again from the console's incident page, which shows the resolve (or run agentk approve --confirm-resolved " + at + " " + decisionID + ")"
}

// Check decides whether req may answer rec at now. It returns nil or the
// refusal's sentinel wrapped with the details. The order matters: a request
// that is malformed or from a stranger learns nothing about the decision.
func Check(rec Record, req Request, now time.Time) error {
	switch req.Answer {
	case contracts.AnswerApprove, contracts.AnswerDeny:
	default:
		return fmt.Errorf("%w: got %q", ErrBadAnswer, req.Answer)
	}
	switch req.Channel {
	case contracts.ChannelSlack, contracts.ChannelWeb, contracts.ChannelCLI:
	default:
		return fmt.Errorf("%w: got %q", ErrBadChannel, req.Channel)
	}
	if req.Approver == "" {
		return fmt.Errorf("%w: %s", ErrUnknownApprover, req.Identity)
	}
	if err := checkMessage(rec, req); err != nil {
		return err
	}
	if a := rec.Answer; a != nil {
		if req.RequestID != "" && req.RequestID == a.RequestID {
			return fmt.Errorf("%w: %s was already answered by this request", ErrReplay, rec.DecisionID)
		}
		return fmt.Errorf("%w: %s by %s via %s at %s", ErrAlreadyAnswered, a.Answer, a.Approver, a.Channel, a.AnsweredAt.Format(time.RFC3339))
	}
	if rec.Decision.Verdict != contracts.VerdictAllow {
		return fmt.Errorf("%w: %s (verdict %q)", ErrGateDenied, rec.DecisionID, rec.Decision.Verdict)
	}
	if !now.Before(rec.ExpiresAt) {
		return fmt.Errorf("%w: %s at %s", ErrExpired, rec.DecisionID, rec.ExpiresAt.Format(time.RFC3339))
	}
	if req.Digest != "" && req.Digest != rec.Digest {
		return fmt.Errorf("%w: %s", ErrDigestMismatch, rec.DecisionID)
	}
	return nil
}

// Approval builds the agentk.approval.v1 payload for an accepted request and
// the ttl to seal it with, so that the envelope expires exactly when the
// decision does. Call it only after Check and CheckResolved returned nil;
// confirmed is CheckResolved's resolve time (the deployer refuses an
// approval of a resolved incident without it).
func Approval(rec Record, req Request, confirmed, now time.Time) (contracts.ApprovalV1, time.Duration) {
	return contracts.ApprovalV1{
		ApprovalID:     req.ApprovalID,
		DecisionID:     rec.DecisionID,
		DecisionDigest: rec.Digest,
		IncidentID:     rec.Decision.IncidentID,
		Service:        rec.Decision.Service,
		Answer:         req.Answer,
		Approver:       req.Approver,
		Channel:        req.Channel,
		AnsweredAt:     now.UTC(),
		ExpiresAt:      rec.ExpiresAt,
		Decision:       rec.Envelope,
		// Zero unless the human confirmed after the alert resolved.
		ResolvedConfirmedAt: confirmed.UTC(),
	}, rec.ExpiresAt.Sub(now)
}

// Accept returns rec with the sealed approval recorded as its one answer.
func Accept(rec Record, req Request, sealed envelope.Envelope, now time.Time) Record {
	rec.Answer = &Answer{
		ApprovalID: req.ApprovalID,
		Answer:     req.Answer,
		Approver:   req.Approver,
		Channel:    req.Channel,
		AnsweredAt: now.UTC(),
		RequestID:  req.RequestID,
		Approval:   sealed.Marshal(),
	}
	return rec
}

// Refuse returns rec with the refusal of req for reason err recorded.
func Refuse(rec Record, req Request, err error, now time.Time) Record {
	return rec.WithRefusal(Refusal{
		At: now.UTC(), Approver: req.Approver, Identity: req.Identity,
		Channel: req.Channel, Answer: req.Answer, Reason: err.Error(),
	})
}
