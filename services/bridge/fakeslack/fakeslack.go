// Package fakeslack is a local stand-in for the Slack Web API and for Slack's
// side of interactivity, for tests and replays. It serves chat.postMessage and
// chat.update as Slack does (form-encoded, bot token, {"ok":...} answers),
// receives response_url posts, records every message, and builds block_actions
// interaction requests signed exactly as Slack signs them, so an approver can
// answer through the bridge's real /slack/interactions path.
//
// It listens on loopback only.
package fakeslack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Errors of the fake's waiting and clicking helpers.
var (
	ErrNoButton = errors.New("fakeslack: message has no such button")
	ErrTimeout  = errors.New("fakeslack: nothing matched before the context ended")
)

// Message is one posted message as it now stands.
type Message struct {
	Channel string
	TS      string
	// ThreadTS is the parent message's ts for a reply in a thread.
	ThreadTS string
	Text     string
	// Blocks is the Block Kit JSON array as last posted, updated or replaced.
	Blocks json.RawMessage
	// Updates counts chat.update calls and response_url replacements.
	Updates int
}

// Response is one post to a response_url.
type Response struct {
	// MessageTS is the message the response_url belongs to.
	MessageTS       string
	Text            string
	ResponseType    string
	ReplaceOriginal bool
	Blocks          json.RawMessage
}

// Server is the fake. Create it with New; Close it when done.
type Server struct {
	srv      *httptest.Server
	botToken string
	teamID   string

	mu        sync.Mutex
	seq       int
	messages  []*Message
	responses []Response
	changed   chan struct{}
	// refuse, when set, is the error every chat.* call answers with.
	refuse string
}

// New starts a fake Slack that accepts botToken.
func New(botToken string) *Server {
	s := &Server{botToken: botToken, teamID: "T0AGENTK", changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat.postMessage", s.postMessage)
	mux.HandleFunc("POST /api/chat.update", s.update)
	mux.HandleFunc("POST /api/auth.test", s.authTest)
	mux.HandleFunc("POST /actions/{ts}/{nonce}", s.responseURL)
	s.srv = httptest.NewServer(mux)
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// APIURL is the Web API base URL to configure the bridge with (AGENTK_SLACK_API_URL).
func (s *Server) APIURL() string { return s.srv.URL + "/api/" }

// ResponseURLPrefix is what every response_url the fake hands out starts with
// (AGENTK_SLACK_RESPONSE_URL_PREFIX).
func (s *Server) ResponseURLPrefix() string { return s.srv.URL + "/actions/" }

// Refuse makes every chat.postMessage and chat.update answer
// {"ok":false,"error":code} (a revoked token, a channel the app left);
// Refuse("") accepts them again.
func (s *Server) Refuse(code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = code
}

func (s *Server) refusing() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refuse
}

// Messages returns copies of every posted message, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.messages))
	for i, m := range s.messages {
		out[i] = *m
	}
	return out
}

// Responses returns every response_url post, oldest first.
func (s *Server) Responses() []Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Response(nil), s.responses...)
}

// WaitMessage blocks until a posted message satisfies match and returns it.
func (s *Server) WaitMessage(ctx context.Context, match func(Message) bool) (Message, error) {
	var out Message
	err := s.wait(ctx, func() bool {
		for _, m := range s.messages {
			if match(*m) {
				out = *m
				return true
			}
		}
		return false
	})
	return out, err
}

// WaitResponse blocks until a response_url post satisfies match.
func (s *Server) WaitResponse(ctx context.Context, match func(Response) bool) (Response, error) {
	var out Response
	err := s.wait(ctx, func() bool {
		for _, r := range s.responses {
			if match(r) {
				out = r
				return true
			}
		}
		return false
	})
	return out, err
}

// wait blocks until found, called with mu held, reports a match, waking on
// every change.
func (s *Server) wait(ctx context.Context, found func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		ok := found()
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("%w: %v", ErrTimeout, ctx.Err())
		}
	}
}

// notify wakes waiters; call with mu held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) authed(r *http.Request) bool {
	tok := r.PostForm.Get("token")
	if h, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		tok = h
	}
	return tok != "" && tok == s.botToken
}

// admit answers as Slack does a form it cannot parse or a wrong token and,
// for the calls a test can make fail (refusable), the scripted refusal; it
// reports whether the call goes on.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, refusable bool) bool {
	if err := r.ParseForm(); err != nil {
		slackErr(w, "invalid_form_data")
		return false
	}
	if !s.authed(r) {
		slackErr(w, "invalid_auth")
		return false
	}
	if refusable {
		if code := s.refusing(); code != "" {
			slackErr(w, code)
			return false
		}
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

func slackErr(w http.ResponseWriter, code string) {
	writeJSON(w, map[string]any{"ok": false, "error": code})
}

// authTest answers auth.test as Slack does: the team and bot user for the
// accepted token, invalid_auth for any other.
func (s *Server) authTest(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w, r, false) {
		return
	}
	writeJSON(w, map[string]any{"ok": true, "url": "https://agentk-test.slack.com/", "team": "agentk test",
		"user": "agentk", "team_id": s.teamID, "user_id": "U0AGENTKBOT", "bot_id": "B0AGENTK"})
}

func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w, r, true) {
		return
	}
	ch := r.PostForm.Get("channel")
	if ch == "" {
		slackErr(w, "channel_not_found")
		return
	}
	blocks := json.RawMessage(r.PostForm.Get("blocks"))
	if len(blocks) > 0 && !json.Valid(blocks) {
		slackErr(w, "invalid_blocks")
		return
	}
	s.mu.Lock()
	s.seq++
	m := &Message{Channel: ch, TS: fmt.Sprintf("1700000000.%06d", s.seq), ThreadTS: r.PostForm.Get("thread_ts"),
		Text: r.PostForm.Get("text"), Blocks: blocks}
	s.messages = append(s.messages, m)
	s.notify()
	s.mu.Unlock()
	writeJSON(w, map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS,
		"message": map[string]any{"type": "message", "text": m.Text, "ts": m.TS, "blocks": m.Blocks}})
}

func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w, r, true) {
		return
	}
	ch, ts := r.PostForm.Get("channel"), r.PostForm.Get("ts")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		if m.Channel == ch && m.TS == ts {
			m.Text, m.Updates = r.PostForm.Get("text"), m.Updates+1
			if b := r.PostForm.Get("blocks"); b != "" {
				m.Blocks = json.RawMessage(b)
			}
			s.notify()
			writeJSON(w, map[string]any{"ok": true, "channel": ch, "ts": ts, "text": m.Text})
			return
		}
	}
	slackErr(w, "message_not_found")
}

func (s *Server) responseURL(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Text            string          `json:"text"`
		ResponseType    string          `json:"response_type"`
		ReplaceOriginal bool            `json:"replace_original"`
		Blocks          json.RawMessage `json:"blocks"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "invalid_payload", http.StatusBadRequest)
		return
	}
	ts := r.PathValue("ts")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responses = append(s.responses, Response{MessageTS: ts, Text: body.Text, ResponseType: body.ResponseType,
		ReplaceOriginal: body.ReplaceOriginal, Blocks: body.Blocks})
	if body.ReplaceOriginal {
		for _, m := range s.messages {
			if m.TS == ts {
				m.Text, m.Blocks, m.Updates = body.Text, body.Blocks, m.Updates+1
			}
		}
	}
	s.notify()
	_, _ = w.Write([]byte("ok"))
}
