package sandbox

import (
	"context"
	"net/http"
	"os"
	"time"

	"agentk/services/sandbox/internal/config"
	"agentk/services/sandbox/internal/signoz"
)

// CheckSigNoz asks SigNoz, with the configured URL and key, the same cheap
// authenticated question readiness asks, for `agentk config`: nil when it
// answers with the key accepted, else an error wrapping "signoz: not
// authorised" or "signoz: unavailable" with SigNoz's answer.
func CheckSigNoz(ctx context.Context, getenv func(string) string, now time.Time) error {
	cfg, err := config.FromEnv(getenv, os.ReadFile)
	if err != nil {
		return err
	}
	c := &signoz.Client{BaseURL: cfg.SigNozURL, APIKey: cfg.APIKey, Auth: cfg.Auth, HTTP: &http.Client{Timeout: cfg.Timeout}}
	return c.Probe(ctx, now)
}

// LinkBase is the SigNoz base URL the sandbox builds its evidence links
// under, read as Run reads it, for `agentk config`'s cross-check.
func LinkBase(getenv func(string) string) (string, error) {
	c, err := config.FromEnv(getenv, os.ReadFile)
	if err != nil && c.LinkBaseURL == "" {
		return "", err
	}
	return c.LinkBaseURL, nil
}

// ErrSigNozKeyRejected is what CheckSigNoz wraps when SigNoz answered and
// refused the key (as against being unreachable).
var ErrSigNozKeyRejected = signoz.ErrAuth
