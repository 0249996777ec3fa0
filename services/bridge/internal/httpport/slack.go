package httpport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"agentk/contracts"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/slackauth"
	"agentk/services/bridge/internal/slackmsg"
)

// maxSlackBody bounds an interaction request; Slack's are a few KiB.
const maxSlackBody = 1 << 20

// answerBudget keeps the reply inside Slack's 3 s limit; the message update
// goes through response_url afterwards.
const answerBudget = 2500 * time.Millisecond

func (s *Server) interactions(w http.ResponseWriter, r *http.Request) {
	if s.o.SigningSecret == "" {
		http.NotFound(w, r)
		return
	}
	now := s.o.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSlackBody))
	if err != nil {
		s.o.Desk.RefuseRequest(contracts.ChannelSlack, fmt.Errorf("slack: body: %w", err))
		http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
		return
	}
	// Verify the raw bytes before anything reads them.
	if err := slackauth.Verify(r.Header, body, s.o.SigningSecret, now); err != nil {
		s.o.Desk.RefuseRequest(contracts.ChannelSlack, err)
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		s.o.Desk.RefuseRequest(contracts.ChannelSlack, fmt.Errorf("%w: %v", slackmsg.ErrPayload, err))
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	click, err := slackmsg.ParseInteraction([]byte(form.Get("payload")))
	if err != nil {
		s.o.Desk.RefuseRequest(contracts.ChannelSlack, err)
		http.Error(w, "unsupported interaction", http.StatusBadRequest)
		return
	}
	if click.Link {
		w.WriteHeader(http.StatusOK)
		return
	}
	if click.FreezeService != "" {
		s.slackFreezeClick(w, r, click, now)
		return
	}
	name, _ := s.o.Approvers.BySlackID(click.UserID)
	req := approval.Request{
		DecisionID: click.DecisionID, Digest: click.Digest, Answer: click.Answer,
		Approver: name, Identity: "slack:" + click.UserID, Channel: contracts.ChannelSlack,
		RequestID: slackauth.RequestID(r.Header), ResolvedSeen: click.ResolvedSeen,
		SlackChannel: click.ChannelID, SlackTS: click.MessageTS,
	}
	if s.replay.Seen(req.RequestID, now) {
		s.o.Desk.Refuse(r.Context(), req, fmt.Errorf("%w: request %s seen before", approval.ErrReplay, req.RequestID))
		http.Error(w, "replayed request", http.StatusConflict)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), answerBudget)
	rec, err := s.o.Desk.Answer(ctx, req)
	cancel()
	w.WriteHeader(http.StatusOK)
	if s.o.Slack == nil || click.ResponseURL == "" {
		return
	}
	log := s.o.Logger.With("decision_id", req.DecisionID)
	if err == nil {
		s.background(func(ctx context.Context) {
			if err := s.o.Slack.Replace(ctx, click.ResponseURL, rec); err != nil {
				log.WarnContext(ctx, "slack message not replaced", "err", err)
			}
		})
		return
	}
	text := "Your answer was not accepted: " + refusalText(err)
	s.background(func(ctx context.Context) {
		if err := s.o.Slack.Tell(ctx, click.ResponseURL, text); err != nil {
			log.WarnContext(ctx, "slack refusal not delivered", "err", err)
		}
	})
}

func (s *Server) slackFreezeClick(w http.ResponseWriter, r *http.Request, click slackmsg.Click, now time.Time) {
	if s.replay.Seen(slackauth.RequestID(r.Header), now) {
		s.o.Desk.RefuseRequest(contracts.ChannelSlack, fmt.Errorf("%w: freeze request seen before", approval.ErrReplay))
		http.Error(w, "replayed request", http.StatusConflict)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), answerBudget)
	f, err := s.slackFreeze(ctx, click.UserID, click.FreezeService)
	cancel()
	if err != nil {
		s.o.Desk.RefuseRequest(contracts.ChannelSlack, fmt.Errorf("slack freeze of %s: %w", click.FreezeService, err))
	}
	w.WriteHeader(http.StatusOK)
	if s.o.Slack == nil || click.ResponseURL == "" {
		return
	}
	text := "Freeze " + f.FreezeID + " on " + f.Scope + " set by " + f.By + " until " + f.ExpiresAt.UTC().Format(time.RFC3339) + "."
	if err != nil {
		text = "Freeze not set: " + err.Error()
	}
	s.background(func(ctx context.Context) {
		if err := s.o.Slack.Tell(ctx, click.ResponseURL, text); err != nil {
			s.o.Logger.WarnContext(ctx, "slack freeze reply not delivered", "err", err)
		}
	})
}

// refusalText is what the human is told: the refusal's reason, or a plain
// "try again" for failures that are not theirs.
func refusalText(err error) string {
	for _, known := range []error{
		approval.ErrUnknownApprover, approval.ErrAlreadyAnswered, approval.ErrReplay,
		approval.ErrGateDenied, approval.ErrExpired, approval.ErrDigestMismatch,
		approval.ErrNotFound, approval.ErrBadAnswer, approval.ErrResolved, approval.ErrWrongMessage, approval.ErrMessagePending,
	} {
		if errors.Is(err, known) {
			return err.Error()
		}
	}
	return "the bridge could not record it (" + err.Error() + "); try again"
}
