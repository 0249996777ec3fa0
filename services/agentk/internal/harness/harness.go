// Package harness holds what the replay harness (services/agentk/replay) and the
// live demo (services/agentk/internal/livedemo) both need to run the pipeline in
// one process: loopback servers and ports, random tokens, and the approver
// that answers the bridge's Slack message.
package harness

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/bridge/fakeslack"
)

// RandHex returns n random bytes, hex-encoded.
func RandHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand crashes the program instead)
	return hex.EncodeToString(b)
}

// FreeAddr returns a loopback host:port that was free a moment ago.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	a, err := FreeAddr()
	if err != nil {
		return 0, err
	}
	_, port, _ := net.SplitHostPort(a)
	var n int
	_, err = fmt.Sscan(port, &n)
	return n, err
}

// Serve starts h on a loopback port and returns its base URL and a stop function.
func Serve(h http.Handler) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), func() { _ = srv.Close() }, nil
}

// Approver answers the approval request the bridge posts for an allowed
// decision, by clicking a button of the Slack message as ApproverID.
type Approver struct {
	Slack *fakeslack.Server
	// URL is the bridge's interactions endpoint; Secret its signing secret.
	URL, Secret string
	ApproverID  string
	Now         func() time.Time
	// Ask, when set, asks a human instead of clicking Approve.
	Ask func(question string) bool
	// Clicks is told who clicks which button (fakeslack.Approve or
	// fakeslack.Deny), once the message is there and before the click.
	Clicks func(human bool, action string)
}

// Answer waits for the Slack message of decision d and clicks in it. Its
// errors name the step (the caller prefixes its own name).
func (a Approver) Answer(ctx context.Context, d contracts.DecisionV1) error {
	msg, err := a.Slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
		for _, b := range m.Buttons() {
			// The value is "<decision id>|<digest>": a prefix match on the
			// id alone would take a derived decision's button
			// ("<id>.origin.<service>") for the alerted decision's.
			if b.ActionID == fakeslack.Approve && strings.HasPrefix(b.Value, d.DecisionID+"|") {
				return true
			}
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("no Slack approval request for %s: %w", d.DecisionID, err)
	}
	action := fakeslack.Approve
	question := fmt.Sprintf("Roll %s back to %s?", d.Service, d.RollbackTarget)
	if d.Origin != nil {
		question = d.Origin.Reason
	}
	if a.Ask != nil && !a.Ask(question) {
		action = fakeslack.Deny
	}
	if a.Clicks != nil {
		a.Clicks(a.Ask != nil, action)
	}
	status, err := a.Slack.Click(ctx, a.URL, a.Secret, a.Now(), msg, a.ApproverID, action)
	if err != nil {
		return fmt.Errorf("click: %w", err)
	}
	if status/100 != 2 {
		return errors.New("the bridge answered the click with HTTP " + fmt.Sprint(status))
	}
	return nil
}

// ButtonName is a Slack action id as a person reads it ("approve", "deny").
func ButtonName(action string) string { return strings.TrimPrefix(action, "agentk_") }

// Refused is the ingester's refusal of an alert: its HTTP status and the
// start of its body.
type Refused struct{ Status, Body string }

func (r *Refused) Error() string { return r.Status + ": " + r.Body }

// PostAlert posts an Alertmanager-format webhook body to the ingester at url
// with its bearer token, as SigNoz posts it, and returns the HTTP status. A
// status other than 2xx is a *Refused.
func PostAlert(ctx context.Context, url, token string, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return resp.Status, &Refused{Status: resp.Status, Body: strings.TrimSpace(string(b))}
	}
	return resp.Status, nil
}

// Mark is how a progress line marks a gate check: "pass" or "FAIL".
func Mark(passed bool) string {
	if passed {
		return "pass"
	}
	return "FAIL"
}
