package mcpbackend_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestRuleReadOnBothRoutes: the alert's rule reads the same on the direct
// route (GET /api/v2/rules/{id}) and the MCP route (signoz_get_alert, the
// official server's read-only tool): the same bytes (signoz.RuleBody: our
// server, like the official one, adds a webUrl to SigNoz's body, which
// both routes leave out), so the evidence's hash is the same; a rule SigNoz
// does not have is a 404 on both.
func TestRuleReadOnBothRoutes(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load(filepath.Join("..", "..", "..", "..", "e2e", "incidents-rule", "rule-error-logs-release-ledger"))
	require.NoError(t, err)
	sig := fakeSigNoz(t, inc)
	direct := &signoz.Client{BaseURL: sig.URL, APIKey: key, HTTP: sig.Client()}
	mc := httpBackend(t, sig, nil)
	const id = "0192f7b2-0e44-7a10-b6d3-5f2a9c81e004"

	want, err := direct.Rule(context.Background(), id)
	require.NoError(t, err)
	require.JSONEq(t, string(inc.RuleJSON), string(want.Body))
	require.Equal(t, string(signoz.RuleBody(inc.RuleJSON)), string(want.Body))
	got, err := mc.Rule(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, string(want.Body), string(got.Body))

	for name, read := range map[string]func(context.Context, string) (signoz.RuleResult, error){"direct": direct.Rule, "mcp": mc.Rule} {
		_, err := read(context.Background(), "no-such-rule")
		require.ErrorIs(t, err, signoz.ErrAPI, name)
		var api *signoz.APIError
		require.True(t, errors.As(err, &api), name)
		require.Equal(t, 404, api.HTTPStatus, name)
	}
}
