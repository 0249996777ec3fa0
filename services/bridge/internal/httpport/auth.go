package httpport

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"time"
)

// Console credentials: a per-approver token presented as a Bearer token, as
// the password of basic auth (user = approver name; behind a TLS-terminating
// proxy), or once to the login form, which then sets a session cookie.
const (
	sessionCookie = "agentk_session"
	sessionTTL    = 12 * time.Hour
	maxSessions   = 1000
)

type session struct {
	approver string
	expires  time.Time
}

// principal is an authenticated approver and how they authenticated.
type principal struct {
	name string
	// binding ties the CSRF token to the credential; empty for Bearer, which
	// a browser never sends on its own and so needs no CSRF token.
	binding string
}

func (s *Server) authenticate(r *http.Request) (principal, bool) {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		name, ok := s.o.Approvers.ByToken(strings.TrimSpace(tok))
		return principal{name: name}, ok
	}
	if user, pass, ok := r.BasicAuth(); ok {
		name, ok := s.o.Approvers.ByNameAndToken(user, pass)
		return principal{name: name, binding: "basic:" + name}, ok
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return principal{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[c.Value]
	if !ok || !s.o.Now().Before(sess.expires) {
		delete(s.sessions, c.Value)
		return principal{}, false
	}
	return principal{name: sess.approver, binding: "session:" + c.Value}, true
}

func (s *Server) newSession(approver string) string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	id := base64.RawURLEncoding.EncodeToString(b[:])
	now := s.o.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.sessions {
		if !now.Before(v.expires) || len(s.sessions) >= maxSessions {
			delete(s.sessions, k)
		}
	}
	s.sessions[id] = session{approver: approver, expires: now.Add(sessionTTL)}
	return id
}

func (s *Server) dropSession(r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.mu.Lock()
		delete(s.sessions, c.Value)
		s.mu.Unlock()
	}
}

func (s *Server) cookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: sessionCookie, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: !s.o.InsecureCookies, SameSite: http.SameSiteStrictMode,
	}
}

// csrfToken is an HMAC of the credential binding under a per-process key: it
// changes with the session and cannot be computed by another site.
func (s *Server) csrfToken(p principal) string {
	m := hmac.New(sha256.New, s.csrf)
	m.Write([]byte("agentk-console-csrf\x00" + p.binding))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// csrfOK checks a state-changing browser request: the token must match, and
// a browser that says the request is cross-site is refused outright.
func (s *Server) csrfOK(r *http.Request, p principal) bool {
	if p.binding == "" {
		return true
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	got := r.PostFormValue("csrf")
	return got != "" && hmac.Equal([]byte(got), []byte(s.csrfToken(p)))
}
