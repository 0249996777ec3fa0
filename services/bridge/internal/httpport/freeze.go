package httpport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"agentk/contracts"
	"agentk/services/bridge/internal/freezes"
)

// FreezeRequest is the body of POST /api/v1/freezes and of the console form.
type FreezeRequest struct {
	// Scope is a service or "_global".
	Scope  string `json:"scope"`
	Reason string `json:"reason"`
	// Duration is a Go duration ("4h"); required to freeze, ignored to lift.
	Duration string `json:"duration,omitempty"`
}

// SlackFreezeDuration is how long the Slack "Freeze service" button freezes.
const SlackFreezeDuration = 4 * time.Hour

func (s *Server) freezeRequest(r FreezeRequest, by, channel string) (freezes.Request, error) {
	req := freezes.Request{Scope: r.Scope, Reason: r.Reason, By: by, Channel: channel}
	if r.Duration != "" {
		d, err := time.ParseDuration(r.Duration)
		if err != nil {
			return req, errors.Join(freezes.ErrInvalid, err)
		}
		req.Duration = d
	}
	return req, nil
}

func freezeStatus(err error) int {
	switch {
	case errors.Is(err, freezes.ErrInvalid):
		return http.StatusUnprocessableEntity
	case errors.Is(err, freezes.ErrNotFrozen):
		return http.StatusNotFound
	}
	return http.StatusServiceUnavailable
}

func (s *Server) freezeDesk(w http.ResponseWriter) (*freezes.Desk, bool) {
	if s.o.Freezes == nil {
		apiError(w, http.StatusServiceUnavailable, "freezes are not configured")
		return nil, false
	}
	return s.o.Freezes, true
}

func (s *Server) apiFreezes(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.bearer(w, r); !ok {
		return
	}
	fd, ok := s.freezeDesk(w)
	if !ok {
		return
	}
	list, err := fd.List(r.Context())
	if err != nil {
		apiError(w, freezeStatus(err), err.Error())
		return
	}
	if list == nil {
		list = []contracts.FreezeV1{}
	}
	writeJSON(w, http.StatusOK, list)
}

// apiFreeze sets (POST /api/v1/freezes) or lifts (POST
// /api/v1/freezes/{scope}/lift) a freeze as the token's approver.
func (s *Server) apiFreeze(lift bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, ok := s.bearer(w, r)
		if !ok {
			return
		}
		fd, ok := s.freezeDesk(w)
		if !ok {
			return
		}
		var body FreezeRequest
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&body); err != nil {
			apiError(w, http.StatusBadRequest, "body: "+err.Error())
			return
		}
		if lift {
			body.Scope = r.PathValue("scope")
		}
		req, err := s.freezeRequest(body, name, contracts.ChannelCLI)
		if err != nil {
			apiError(w, freezeStatus(err), err.Error())
			return
		}
		f, err := s.setOrLift(r.Context(), fd, req, lift)
		if err != nil {
			apiError(w, freezeStatus(err), err.Error())
			return
		}
		writeJSON(w, http.StatusOK, f)
	}
}

func (s *Server) setOrLift(ctx context.Context, fd *freezes.Desk, req freezes.Request, lift bool) (contracts.FreezeV1, error) {
	var (
		f   contracts.FreezeV1
		err error
	)
	if lift {
		f, err = fd.Lift(ctx, req)
	} else {
		f, err = fd.Set(ctx, req)
	}
	if err == nil {
		s.o.Logger.WarnContext(ctx, "freeze changed", "scope", f.Scope, "active", f.Active, "freeze_id", f.FreezeID, "by", f.By,
			"channel", f.Channel, "expires_at", f.ExpiresAt)
	}
	return f, err
}

// consoleFreeze is the console's freeze and unfreeze form (session + CSRF).
func (s *Server) consoleFreeze(w http.ResponseWriter, r *http.Request) {
	p, ok := s.consoleForm(w, r, 16<<10)
	if !ok {
		return
	}
	if s.o.Freezes == nil {
		render(w, http.StatusServiceUnavailable, messageTmpl, message{Title: "Freeze refused", Text: "freezes are not configured", Back: "/console"})
		return
	}
	lift := r.PostFormValue("op") == "lift"
	req, err := s.freezeRequest(FreezeRequest{Scope: r.PostFormValue("scope"), Reason: r.PostFormValue("reason"), Duration: r.PostFormValue("duration")}, p.name, contracts.ChannelWeb)
	if err == nil {
		var f contracts.FreezeV1
		f, err = s.setOrLift(r.Context(), s.o.Freezes, req, lift)
		if err == nil {
			text := "Freeze " + f.FreezeID + " on " + f.Scope + " set by " + f.By + " until " + f.ExpiresAt.UTC().Format(time.RFC3339) + ", signed."
			if lift {
				text = "Freeze " + f.Lifts + " on " + f.Scope + " lifted by " + f.By + ", signed."
			}
			render(w, http.StatusOK, messageTmpl, message{Title: "Freeze recorded", Text: text, Back: "/console"})
			return
		}
	}
	render(w, freezeStatus(err), messageTmpl, message{Title: "Freeze refused", Text: err.Error(), Back: "/console"})
}

// slackFreeze handles the "Freeze service" button: the clicking approver
// freezes the decision's service for SlackFreezeDuration.
func (s *Server) slackFreeze(ctx context.Context, userID, service string) (contracts.FreezeV1, error) {
	name, ok := s.o.Approvers.BySlackID(userID)
	if !ok {
		return contracts.FreezeV1{}, errors.Join(freezes.ErrInvalid, errors.New("slack user "+userID+" is not an approver"))
	}
	if s.o.Freezes == nil {
		return contracts.FreezeV1{}, errors.New("freezes are not configured")
	}
	return s.setOrLift(ctx, s.o.Freezes, freezes.Request{Scope: service, Reason: "frozen from Slack by " + name,
		By: name, Channel: contracts.ChannelSlack, Duration: SlackFreezeDuration}, false)
}
