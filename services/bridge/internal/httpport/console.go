package httpport

import (
	"errors"
	"html/template"
	"net/http"
	"sort"
	"time"

	"agentk/contracts"
	"agentk/platform/human"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/desk"
	"agentk/services/bridge/internal/slackmsg"
	"agentk/services/bridge/internal/store"
	"agentk/services/bridge/internal/view"
)

type row struct {
	Rec    approval.Record
	Status approval.Status
	Open   bool
	// Facts and Links are what the gate saw and where to check it.
	Facts view.Facts
	Links view.Links
	// Left is the time left to answer ("4 min 10 s left", "expired").
	Left string
	// Outcome is the deployer's outcome in words, once it arrived.
	Outcome string
	// Took is how long the deployer's action took, in words.
	Took string
}

func (s *Server) row(rec approval.Record, now time.Time) row {
	st := rec.StatusAt(now)
	r := row{Rec: rec, Status: st, Open: st == approval.StatusOpen, Facts: view.FactsOf(rec.Decision),
		Left: view.TimeLeft(rec.ExpiresAt, now)}
	if s.o.Links != nil {
		r.Links = s.o.Links(rec)
	}
	if a := rec.Action; a != nil {
		r.Outcome = slackmsg.OutcomeTitle(*a)
		r.Took = human.Duration(time.Duration(a.TotalMs) * time.Millisecond)
	}
	return r
}

type listPage struct {
	Approver string
	CSRF     string
	Open     []row
	Closed   []row
	Refused  []approval.Refusal
	Now      time.Time
	// Freezes are the latest value of every freeze scope.
	Freezes   []contracts.FreezeV1
	FreezeErr string
}

func (s *Server) requireLogin(w http.ResponseWriter, r *http.Request) (principal, bool) {
	p, ok := s.authenticate(r)
	if !ok {
		if r.Header.Get("Authorization") != "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="agentk console", charset="UTF-8"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return principal{}, false
		}
		http.Redirect(w, r, "/console/login", http.StatusSeeOther)
		return principal{}, false
	}
	return p, true
}

func (s *Server) consoleList(w http.ResponseWriter, r *http.Request) {
	p, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	recs, err := s.o.Desk.List(r.Context())
	if err != nil {
		s.o.Logger.ErrorContext(r.Context(), "console: list", "err", err)
		http.Error(w, "decisions unavailable", http.StatusServiceUnavailable)
		return
	}
	now := s.o.Now()
	page := listPage{Approver: p.name, CSRF: s.csrfToken(p), Now: now, Refused: s.o.Desk.RecentRefusals()}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ReceivedAt.After(recs[j].ReceivedAt) })
	for _, rec := range recs {
		rw := s.row(rec, now)
		if rw.Open {
			page.Open = append(page.Open, rw)
		} else if len(page.Closed) < 50 {
			page.Closed = append(page.Closed, rw)
		}
	}
	if s.o.Freezes != nil {
		if fz, err := s.o.Freezes.List(r.Context()); err != nil {
			page.FreezeErr = "freezes unavailable: " + err.Error()
		} else {
			page.Freezes = fz
		}
	}
	render(w, http.StatusOK, listTmpl, page)
}

type incidentPage struct {
	Approver   string
	CSRF       string
	IncidentID string
	Service    string
	Report     template.HTML
	Rows       []row
	// ResolvedAt is when the incident's alert resolved (zero: firing);
	// ResolvedSeen is it as the form carries it back, so that an approval
	// from this page is a re-confirmation after the resolve.
	ResolvedAt   time.Time
	ResolvedSeen string
}

func (s *Server) consoleIncident(w http.ResponseWriter, r *http.Request) {
	p, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	recs, err := s.o.Desk.List(r.Context())
	if err != nil {
		http.Error(w, "decisions unavailable", http.StatusServiceUnavailable)
		return
	}
	now := s.o.Now()
	page := incidentPage{Approver: p.name, CSRF: s.csrfToken(p), IncidentID: id}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ReceivedAt.After(recs[j].ReceivedAt) })
	if at, err := s.o.Desk.ResolvedAt(r.Context(), id); err != nil {
		http.Error(w, "incident state unavailable", http.StatusServiceUnavailable)
		return
	} else if !at.IsZero() {
		page.ResolvedAt, page.ResolvedSeen = at, at.UTC().Format(time.RFC3339Nano)
	}
	for _, rec := range recs {
		if rec.Decision.IncidentID == id {
			page.Rows = append(page.Rows, s.row(rec, now))
			// The incident is the alerted service's: a derived decision
			// (issue 33) is about another service.
			if o := rec.Decision.Origin; o != nil && page.Service == "" {
				page.Service = o.AlertedService
			} else if o == nil {
				page.Service = rec.Decision.Service
			}
		}
	}
	if s.o.Reports != nil {
		if h, err := s.o.Reports.HTML(r.Context(), id); err == nil {
			page.Report = h
		}
	}
	if len(page.Rows) == 0 && page.Report == "" {
		render(w, http.StatusNotFound, messageTmpl, message{Title: "Unknown incident", Text: "No decision or report for incident " + id + "."})
		return
	}
	render(w, http.StatusOK, incidentTmpl, page)
}

// consoleForm admits a console form post: a logged-in session, a body of at
// most limit bytes, and the session's CSRF token; otherwise it has answered
// (the login page, or a refusal) and ok is false.
func (s *Server) consoleForm(w http.ResponseWriter, r *http.Request, limit int64) (p principal, ok bool) {
	if p, ok = s.requireLogin(w, r); !ok {
		return p, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if !s.csrfOK(r, p) {
		s.o.Desk.RefuseRequest(contracts.ChannelWeb, errors.New("console: CSRF check failed"))
		render(w, http.StatusForbidden, messageTmpl, message{Title: "Refused", Text: "The form was stale or came from another site. Reload the console and try again."})
		return p, false
	}
	return p, true
}

func (s *Server) consoleAnswer(w http.ResponseWriter, r *http.Request) {
	p, ok := s.consoleForm(w, r, 64<<10)
	if !ok {
		return
	}
	req := approval.Request{
		DecisionID: r.PathValue("id"), Digest: r.PostFormValue("digest"), Answer: r.PostFormValue("answer"),
		Approver: p.name, Identity: "web:" + p.name, Channel: contracts.ChannelWeb,
	}
	if v := r.PostFormValue("resolved_seen"); v != "" {
		at, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			render(w, http.StatusBadRequest, messageTmpl, message{Title: "Answer refused", Text: "resolved_seen: not an RFC 3339 time", Back: "/console"})
			return
		}
		req.ResolvedSeen = at
	}
	rec, err := s.o.Desk.Answer(r.Context(), req)
	if err != nil {
		render(w, statusFor(err), messageTmpl, message{Title: "Answer refused", Text: refusalText(err), Back: "/console"})
		return
	}
	render(w, http.StatusOK, messageTmpl, message{
		Title: "Answer recorded",
		Text:  rec.Answer.Answer + " of " + rec.DecisionID + " by " + rec.Answer.Approver + " was signed and published (approval " + rec.Answer.ApprovalID + ").",
		Back:  "/console/incidents/" + rec.Decision.IncidentID,
	})
}

func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	render(w, http.StatusOK, loginTmpl, message{Title: "Sign in"})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	name, ok := s.o.Approvers.ByNameAndToken(r.PostFormValue("approver"), r.PostFormValue("token"))
	if !ok {
		s.o.Desk.RefuseRequest(contracts.ChannelWeb, errors.New("console: login failed for "+template.HTMLEscapeString(r.PostFormValue("approver"))))
		render(w, http.StatusUnauthorized, loginTmpl, message{Title: "Sign in", Text: "Unknown approver or wrong token."})
		return
	}
	http.SetCookie(w, s.cookie(s.newSession(name), int(sessionTTL/time.Second)))
	http.Redirect(w, r, "/console", http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if p, ok := s.authenticate(r); ok && s.csrfOK(r, p) {
		s.dropSession(r)
	}
	http.SetCookie(w, s.cookie("", -1))
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
}

// statusFor maps a refusal to an HTTP status for the console and the API.
func statusFor(err error) int {
	switch {
	case errors.Is(err, approval.ErrNotFound), errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, approval.ErrUnknownApprover):
		return http.StatusForbidden
	case errors.Is(err, approval.ErrAlreadyAnswered), errors.Is(err, approval.ErrReplay), errors.Is(err, approval.ErrResolved):
		return http.StatusConflict
	case errors.Is(err, approval.ErrExpired):
		return http.StatusGone
	case errors.Is(err, approval.ErrGateDenied), errors.Is(err, approval.ErrBadAnswer),
		errors.Is(err, approval.ErrDigestMismatch), errors.Is(err, approval.ErrBadChannel):
		return http.StatusUnprocessableEntity
	case errors.Is(err, desk.ErrBusy), errors.Is(err, store.ErrUnavailable):
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}
