package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"agentk/contracts"
)

// Freeze asks the bridge to sign a freeze of scope (a service or
// contracts.FreezeGlobal) for d, as the token's approver: what `agentk
// freeze` calls.
func Freeze(ctx context.Context, consoleURL, token, scope, reason string, d time.Duration) (contracts.FreezeV1, error) {
	if consoleURL == "" || token == "" || scope == "" {
		return contracts.FreezeV1{}, fmt.Errorf("%w: need console URL, token and scope", ErrArgs)
	}
	return postFreeze(ctx, consoleURL+"/api/v1/freezes", token, map[string]string{"scope": scope, "reason": reason, "duration": d.String()})
}

// Unfreeze asks the bridge to sign the lifting of scope's active freeze.
func Unfreeze(ctx context.Context, consoleURL, token, scope, reason string) (contracts.FreezeV1, error) {
	if consoleURL == "" || token == "" || scope == "" {
		return contracts.FreezeV1{}, fmt.Errorf("%w: need console URL, token and scope", ErrArgs)
	}
	return postFreeze(ctx, consoleURL+"/api/v1/freezes/"+url.PathEscape(scope)+"/lift", token, map[string]string{"reason": reason})
}

func postFreeze(ctx context.Context, u, token string, body map[string]string) (contracts.FreezeV1, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.Replace(u, "//api", "/api", 1), bytes.NewReader(b))
	if err != nil {
		return contracts.FreezeV1{}, fmt.Errorf("%w: %w", ErrArgs, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := HTTPClient.Do(req)
	if err != nil {
		return contracts.FreezeV1{}, fmt.Errorf("%w: %w", ErrTransport, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return contracts.FreezeV1{}, fmt.Errorf("%w: %w", ErrTransport, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(raw))
		}
		return contracts.FreezeV1{}, &RefusedError{Status: resp.StatusCode, Reason: e.Error}
	}
	var f contracts.FreezeV1
	if err := json.Unmarshal(raw, &f); err != nil {
		return contracts.FreezeV1{}, fmt.Errorf("%w: response: %w", ErrTransport, err)
	}
	return f, nil
}
