// Package recovery answers "did the service recover after the rollback?".
//
// Sandbox is the real check: the sandbox's service_overview of the service
// over [container verified, now], judged against the recovery SLO. HTTPProbe
// is a fallback for setups without SigNoz: a direct HTTP probe of the
// service's own endpoint, NOT telemetry, chosen only explicitly.
package recovery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"agentk/services/deployer/internal/rollback"
)

// ErrProbe wraps a probe that could not run at all.
var ErrProbe = errors.New("recovery: probe")

// HTTPProbe sends Requests GETs to URL and calls the service recovered when
// the share of failures (transport errors and 5xx) is at most MaxErrorRate.
type HTTPProbe struct {
	URL          string
	Requests     int
	MaxErrorRate float64
	Client       *http.Client
}

// Recovered implements rollback.RecoveryChecker.
func (p HTTPProbe) Recovered(ctx context.Context, q rollback.RecoveryQuery) (bool, string, error) {
	service := q.Service
	if p.URL == "" || p.Requests <= 0 {
		return false, "", fmt.Errorf("%w: no URL or request count for %s", ErrProbe, service)
	}
	c := p.Client
	if c == nil {
		c = &http.Client{Timeout: 5 * time.Second}
	}
	failed := 0
	for range p.Requests {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL, nil)
		if err != nil {
			return false, "", fmt.Errorf("%w: %w", ErrProbe, err)
		}
		resp, err := c.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return false, "", fmt.Errorf("%w: %w", ErrProbe, ctx.Err())
			}
			failed++
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			failed++
		}
	}
	rate := float64(failed) / float64(p.Requests)
	detail := fmt.Sprintf("direct HTTP probe (not telemetry) of %s: %d/%d failed, error rate %.1f%%, SLO max %.1f%%", p.URL, failed, p.Requests, 100*rate, 100*p.MaxErrorRate)
	return rate <= p.MaxErrorRate, detail, nil
}
