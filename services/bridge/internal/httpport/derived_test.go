package httpport_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/bridge/internal/testkit"
)

// getPage reads a console page with alice's bearer token.
func getPage(t *testing.T, r *rig, path string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, r.srv.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err := r.srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return string(b)
}

// TestConsoleShowsTheDerivedDecision: the incident page shows both decisions
// of one alert, the derived one saying which service it acts on and why
// that is not the alerted one; the list says where the alert is.
func TestConsoleShowsTheDerivedDecision(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	alerted := testkit.Decision("d1", r.clock.Now())
	alerted.Verdict, alerted.FailedChecks = contracts.VerdictDeny, []string{contracts.CheckDeploymentRelated}
	alerted.Checks[4].Passed = false
	derived := testkit.Decision(contracts.DerivedDecisionID("d1", "payment"), r.clock.Now())
	derived.IncidentID, derived.Service, derived.RollbackTarget = alerted.IncidentID, "payment", "registry.test/payment:2.1.9"
	derived.Origin = &contracts.DecisionOrigin{AlertedService: "checkout", AlertedDecisionID: "d1", Signal: "errors", Share: 0.71, Failures: 71, Total: 100,
		Reason: "checkout burns its budget; 71% of its new failures begin in payment, released 2.2.0 5m0s before; roll payment back to 2.1.9?"}
	r.receive(t, alerted)
	m := r.receive(t, derived)
	require.Contains(t, m.Text, "payment for the alert on checkout")

	page := getPage(t, r, "/console/incidents/"+alerted.IncidentID)
	require.Contains(t, page, `<h1 id="incident">Incident `+alerted.IncidentID+`: checkout</h1>`, "the incident is the alerted service's")
	require.Contains(t, page, `id="decision-d1"`)
	require.Contains(t, page, `id="decision-d1.origin.payment"`)
	require.Contains(t, page, "Rollback allowed by the gate: payment, where the failures of checkout begin")
	require.Contains(t, page, `id="origin-d1.origin.payment"`)
	require.Contains(t, page, "<strong>Why payment and not checkout:</strong> checkout burns its budget; 71% of its new failures begin in payment, released 2.2.0 5m0s before; roll payment back to 2.1.9?")
	require.Contains(t, page, "The alert fired on <strong>checkout</strong>, not on the service rolled back. Recreate <strong>payment</strong>")
	require.Equal(t, 1, strings.Count(page, `class="origin"`), "only the derived decision carries an origin")

	list := getPage(t, r, "/console")
	require.Contains(t, list, `payment <span class="muted origin">(the alert is on checkout)</span>`)
}
