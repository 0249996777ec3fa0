package httpport_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/bridge/client"
	"agentk/services/bridge/internal/testkit"

	"github.com/stretchr/testify/require"
)

var resolvedSeenRE = regexp.MustCompile(`name="resolved_seen" value="([^"]+)"`)

// Once the alert resolved, the console's incident page says so, and only an
// approval sent from that page (carrying the resolve it showed) is accepted;
// the approval then carries ResolvedConfirmedAt for the deployer. An
// approval from anywhere that did not show the resolve (the list page, a
// Slack button posted while it fired, the API without resolved_seen) is
// refused with a reason that names the resolve.
func TestApprovalAfterTheAlertResolved(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	dec := testkit.Decision("d1", r.clock.Now())
	r.receive(t, dec)
	resolved := r.clock.Now().Add(time.Minute + 400*time.Millisecond)
	r.inc.Resolve(dec.IncidentID, resolved)
	c, csrf := login(t, r)

	resp := post(t, c, r.srv.URL+"/console/decisions/d1", url.Values{"answer": {"approve"}, "csrf": {csrf}}, nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Contains(t, string(body), "resolved")
	require.Empty(t, r.pub.all(), "an approval that did not see the resolve is refused")

	apiBody, _ := json.Marshal(map[string]any{"answer": "approve"})
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/api/v1/decisions/d1/answer", strings.NewReader(string(apiBody)))
	req.Header.Set("Authorization", "Bearer "+bobToken)
	resp, err := r.srv.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusConflict, resp.StatusCode, "the CLI's approval without resolved_seen is refused")

	get, err := c.Get(r.srv.URL + "/console/incidents/" + dec.IncidentID)
	require.NoError(t, err)
	page, _ := io.ReadAll(get.Body)
	get.Body.Close()
	require.Contains(t, string(page), `id="resolved"`)
	require.Contains(t, string(page), "The alert resolved at")
	m := resolvedSeenRE.FindStringSubmatch(string(page))
	require.NotNil(t, m, "the incident page's form carries the resolve it showed")

	resp = post(t, c, r.srv.URL+"/console/decisions/d1", url.Values{"answer": {"approve"}, "csrf": {csrf}, "digest": {r.record(t, "d1").Digest}, "resolved_seen": {m[1]}}, nil)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	pubs := r.pub.all()
	require.Len(t, pubs, 1)
	var a contracts.ApprovalV1
	_, err = r.keys.Keyring.Open(pubs[0].env.Marshal(), contracts.SubjectApproval, r.clock.Now(), &a)
	require.NoError(t, err)
	require.True(t, a.ResolvedConfirmedAt.Equal(resolved), "the approval carries the resolve the human confirmed after: %s", a.ResolvedConfirmedAt)
}

// `agentk approve --confirm-resolved <time shown>`: the CLI's way to
// re-confirm after the resolve, at the second precision it was shown.
func TestCLIApprovalConfirmsTheResolve(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	dec := testkit.Decision("d1", r.clock.Now())
	r.receive(t, dec)
	resolved := r.clock.Now().Add(time.Minute + 400*time.Millisecond)
	r.inc.Resolve(dec.IncidentID, resolved)

	_, err := client.Answer(t.Context(), r.srv.URL, aliceToken, "d1", "approve")
	var refused *client.RefusedError
	require.ErrorAs(t, err, &refused)
	require.Equal(t, http.StatusConflict, refused.Status)
	require.Contains(t, refused.Reason, resolved.UTC().Format(time.RFC3339), "the refusal shows when the alert resolved")
	require.Contains(t, refused.Reason, "agentk approve --confirm-resolved "+resolved.UTC().Format(time.RFC3339)+" d1",
		"the refusal names the command that confirms (issue 34 #3: it named Slack and the console)")

	shown, err := time.Parse(time.RFC3339, resolved.UTC().Format(time.RFC3339))
	require.NoError(t, err)
	_, err = client.AnswerAfterResolve(t.Context(), r.srv.URL, aliceToken, "d1", "approve", shown)
	require.NoError(t, err)
	pubs := r.pub.all()
	require.Len(t, pubs, 1)
	var a contracts.ApprovalV1
	_, err = r.keys.Keyring.Open(pubs[0].env.Marshal(), contracts.SubjectApproval, r.clock.Now(), &a)
	require.NoError(t, err)
	require.True(t, a.ResolvedConfirmedAt.Equal(resolved))
}
