package fakeslack

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Action ids of the bridge's buttons.
const (
	Approve = "agentk_approve"
	Deny    = "agentk_deny"
	// ApproveResolved is "Approve anyway (alert resolved)", on a message
	// rewritten after the incident's alert resolved.
	ApproveResolved = "agentk_approve_resolved"
	// Freeze is the "Freeze service" button.
	Freeze = "agentk_freeze"
)

// Button is one button found in a message's blocks.
type Button struct {
	ActionID string `json:"action_id"`
	BlockID  string `json:"-"`
	Value    string `json:"value"`
	Style    string `json:"style,omitempty"`
	Text     struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"text"`
}

// Buttons returns the buttons in m's actions blocks that answer (link
// buttons, which only open a URL, are left out).
func (m Message) Buttons() []Button {
	var blocks []struct {
		Type     string            `json:"type"`
		BlockID  string            `json:"block_id"`
		Elements []json.RawMessage `json:"elements"`
	}
	_ = json.Unmarshal(m.Blocks, &blocks)
	var out []Button
	for _, b := range blocks {
		if b.Type != "actions" {
			continue
		}
		for _, e := range b.Elements {
			var btn Button
			var kind struct {
				Type string `json:"type"`
				URL  string `json:"url"`
			}
			// A link button only opens its URL: it is not an answer.
			if json.Unmarshal(e, &kind) != nil || kind.Type != "button" || kind.URL != "" || json.Unmarshal(e, &btn) != nil {
				continue
			}
			btn.BlockID = b.BlockID
			out = append(out, btn)
		}
	}
	return out
}

// BlockActions builds the JSON payload Slack sends when userID clicks the
// button actionID on m, shaped as Slack's block_actions payload, with a
// response_url on this fake.
func (s *Server) BlockActions(m Message, userID, actionID string, now time.Time) ([]byte, error) {
	var btn *Button
	for _, b := range m.Buttons() {
		if b.ActionID == actionID {
			btn = &b
			break
		}
	}
	if btn == nil {
		return nil, fmt.Errorf("%w: %s on %s", ErrNoButton, actionID, m.TS)
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	actionTS := fmt.Sprintf("%d.%06d", now.Unix(), now.Nanosecond()/1000)
	user := map[string]any{"id": userID, "username": strings.ToLower(userID), "name": strings.ToLower(userID), "team_id": s.teamID}
	payload := map[string]any{
		"type":       "block_actions",
		"user":       user,
		"api_app_id": "A0AGENTK",
		"token":      "deprecated-verification-token",
		"container": map[string]any{
			"type": "message", "message_ts": m.TS, "channel_id": m.Channel, "is_ephemeral": false,
		},
		"trigger_id": fmt.Sprintf("%d.%s", now.Unix(), hex.EncodeToString(nonce[:])),
		"team":       map[string]any{"id": s.teamID, "domain": "agentk-test"},
		"enterprise": nil,
		"channel":    map[string]any{"id": m.Channel, "name": "incidents"},
		"message": map[string]any{
			"type": "message", "subtype": "bot_message", "text": m.Text, "ts": m.TS,
			"bot_id": "B0AGENTK", "blocks": m.Blocks,
		},
		"state":        map[string]any{"values": map[string]any{}},
		"response_url": s.ResponseURLPrefix() + m.TS + "/" + hex.EncodeToString(nonce[:]),
		"actions": []map[string]any{{
			"action_id": btn.ActionID, "block_id": btn.BlockID, "text": btn.Text,
			"value": btn.Value, "style": btn.Style, "type": "button", "action_ts": actionTS,
		}},
	}
	return json.Marshal(payload)
}

// Sign returns the X-Slack-Signature Slack would send for body at ts.
func Sign(signingSecret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(signingSecret))
	fmt.Fprintf(m, "v0:%d:", ts)
	m.Write(body)
	return "v0=" + hex.EncodeToString(m.Sum(nil))
}

// InteractionRequest builds the request Slack would send to an interactivity
// URL: POST, form-encoded payload=<json>, signed with signingSecret at now.
func InteractionRequest(ctx context.Context, interactionsURL, signingSecret string, now time.Time, payload []byte) (*http.Request, error) {
	body := []byte(url.Values{"payload": {string(payload)}}.Encode())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, interactionsURL, strings.NewReader(string(body)))
	if err != nil {
		return nil, fmt.Errorf("fakeslack: %w", err)
	}
	ts := now.Unix()
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", "Slackbot 1.0 (+https://api.slack.com/robots)")
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("X-Slack-Signature", Sign(signingSecret, ts, body))
	return req, nil
}

// Click is the approver the replay harness uses: userID clicks actionID on m
// at now, and the signed request is sent to the bridge's interactions URL. It
// returns the bridge's HTTP status.
func (s *Server) Click(ctx context.Context, interactionsURL, signingSecret string, now time.Time, m Message, userID, actionID string) (int, error) {
	payload, err := s.BlockActions(m, userID, actionID, now)
	if err != nil {
		return 0, err
	}
	req, err := InteractionRequest(ctx, interactionsURL, signingSecret, now, payload)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("fakeslack: click: %w", err)
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
