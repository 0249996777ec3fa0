package fakesignoz

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestRecordedRuleIsServed: an incident's rule.json is SigNoz's answer to
// GET /api/v2/rules/{id} for its own id, byte for byte; an id that no alert
// names is a 404 in SigNoz's error envelope.
func TestRecordedRuleIsServed(t *testing.T) {
	t.Parallel()
	dir := "../../../contracts/incident/testdata/retry-storm-01"
	inc, err := incident.Load(dir)
	require.NoError(t, err)
	want, err := os.ReadFile(dir + "/" + incident.FileRule)
	require.NoError(t, err)
	ts := httptest.NewServer(New(inc, Options{APIKey: testKey}))
	t.Cleanup(ts.Close)

	status, body := get(t, ts, "/api/v2/rules/019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11")
	require.Equal(t, http.StatusOK, status, "%s", body)
	require.Equal(t, string(want), string(body))

	status, body = get(t, ts, "/api/v2/rules/no-such-rule")
	require.Equal(t, http.StatusNotFound, status)
	require.Contains(t, decodeErrorResponse(t, body).Error.Message, "rule with id no-such-rule not found")

	status, body, _ = do(t, ts, http.MethodGet, "/api/v2/rules/019368f2-8c1a-7b4e-9d3f-2a6b1c0e5f11", nil, nil)
	require.Equal(t, http.StatusUnauthorized, status, "the rule needs the key like every API route: %s", body)
}
