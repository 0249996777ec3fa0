// Package client is the bridge API's Go client: what `agentk approve|deny`
// calls, with the same per-approver token the console accepts.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Errors. Refused wraps the bridge's reason; the status says which refusal.
var (
	ErrRefused   = errors.New("bridge client: answer refused")
	ErrTransport = errors.New("bridge client: request failed")
	ErrArgs      = errors.New("bridge client: bad arguments")
)

// Result is an accepted answer.
type Result struct {
	DecisionID string `json:"decision_id"`
	ApprovalID string `json:"approval_id"`
	Answer     string `json:"answer"`
	Approver   string `json:"approver"`
}

// RefusedError is returned (matching ErrRefused) when the bridge said no.
type RefusedError struct {
	Status int
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%v (HTTP %d): %s", ErrRefused, e.Status, e.Reason)
}

// Is makes errors.Is(err, ErrRefused) hold.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// HTTPClient is used for every call; replace it to add a proxy or CA pool.
var HTTPClient = &http.Client{Timeout: 15 * time.Second}

// Answer posts answer ("approve" or "deny") for decisionID to the bridge at
// consoleURL (e.g. https://agentk.example.com) with an approver token.
func Answer(ctx context.Context, consoleURL, token, decisionID, answer string) (Result, error) {
	return AnswerAfterResolve(ctx, consoleURL, token, decisionID, answer, time.Time{})
}

// AnswerAfterResolve is Answer for a human who was shown that the incident's
// alert resolved at resolvedSeen (the bridge's refusal and `agentk
// incidents` say when): an approval once the alert resolved is accepted only
// with the resolve time the human confirms after.
func AnswerAfterResolve(ctx context.Context, consoleURL, token, decisionID, answer string, resolvedSeen time.Time) (Result, error) {
	if consoleURL == "" || token == "" || decisionID == "" || (answer != "approve" && answer != "deny") {
		return Result{}, fmt.Errorf("%w: need console URL, token, decision id and approve|deny", ErrArgs)
	}
	fields := map[string]string{"answer": answer}
	if !resolvedSeen.IsZero() {
		fields["resolved_seen"] = resolvedSeen.UTC().Format(time.RFC3339Nano)
	}
	body, _ := json.Marshal(fields)
	u := strings.TrimRight(consoleURL, "/") + "/api/v1/decisions/" + url.PathEscape(decisionID) + "/answer"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrArgs, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := HTTPClient.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrTransport, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrTransport, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(raw))
		}
		return Result{}, &RefusedError{Status: resp.StatusCode, Reason: e.Error}
	}
	var r Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return Result{}, fmt.Errorf("%w: response: %w", ErrTransport, err)
	}
	return r, nil
}
