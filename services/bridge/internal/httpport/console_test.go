package httpport_test

import (
	"context"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/platform/report"
	"agentk/services/bridge/client"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/httpport"
	"agentk/services/bridge/internal/testkit"
	"agentk/services/bridge/internal/view"
)

func TestAPIAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		token      string
		id         string
		answer     string
		setup      func(r *rig)
		wantStatus int
		wantReason string
	}{
		{name: "approve", token: aliceToken, id: "d1", answer: "approve"},
		{name: "deny", token: bobToken, id: "d1", answer: "deny"},
		{name: "no token", token: "", id: "d1", answer: "approve", wantStatus: 401},
		{name: "wrong token", token: "not-a-token-0123456789", id: "d1", answer: "approve", wantStatus: 401},
		{name: "unknown decision", token: aliceToken, id: "nope", answer: "approve", wantStatus: 404, wantReason: "no such decision"},
		{name: "denied by the gate", token: aliceToken, id: "d-deny", answer: "approve", wantStatus: 422, wantReason: "gate denied"},
		{name: "expired", token: aliceToken, id: "d1", answer: "approve", setup: func(r *rig) { r.clock.Advance(16 * time.Minute) }, wantStatus: 410, wantReason: "expired"},
		{name: "second answer", token: bobToken, id: "d1", answer: "deny", setup: func(r *rig) {
			_, err := client.Answer(t.Context(), r.srv.URL, aliceToken, "d1", "approve")
			require.NoError(t, err)
		}, wantStatus: 409, wantReason: "already answered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.receive(t, testkit.Decision("d1", r.clock.Now()))
			r.receive(t, testkit.Denied("d-deny", r.clock.Now()))
			if tc.setup != nil {
				tc.setup(r)
			}
			before := len(r.pub.all())
			res, err := client.Answer(t.Context(), r.srv.URL, tc.token, tc.id, tc.answer)
			if tc.wantStatus == 0 {
				require.NoError(t, err)
				require.Equal(t, tc.answer, res.Answer)
				require.Len(t, r.pub.all(), before+1)
				require.Equal(t, "cli", r.record(t, "d1").Answer.Channel)
				return
			}
			if tc.token == "" {
				require.ErrorIs(t, err, client.ErrArgs)
				return
			}
			var refused *client.RefusedError
			require.ErrorAs(t, err, &refused)
			require.Equal(t, tc.wantStatus, refused.Status)
			require.Contains(t, refused.Reason, tc.wantReason)
			require.Len(t, r.pub.all(), before)
		})
	}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func TestConsoleCSRFAndAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		do         func(t *testing.T, r *rig) *http.Response
		wantStatus int
	}{
		{name: "session with csrf", wantStatus: 200, do: func(t *testing.T, r *rig) *http.Response {
			c, csrf := login(t, r)
			return post(t, c, r.srv.URL+"/console/decisions/d1", url.Values{"answer": {"approve"}, "csrf": {csrf}}, nil)
		}},
		{name: "session without csrf", wantStatus: 403, do: func(t *testing.T, r *rig) *http.Response {
			c, _ := login(t, r)
			return post(t, c, r.srv.URL+"/console/decisions/d1", url.Values{"answer": {"approve"}}, nil)
		}},
		{name: "session, cross-site", wantStatus: 403, do: func(t *testing.T, r *rig) *http.Response {
			c, csrf := login(t, r)
			return post(t, c, r.srv.URL+"/console/decisions/d1", url.Values{"answer": {"approve"}, "csrf": {csrf}}, http.Header{"Sec-Fetch-Site": {"cross-site"}})
		}},
		{name: "basic auth needs csrf too", wantStatus: 403, do: func(t *testing.T, r *rig) *http.Response {
			h := http.Header{}
			req, _ := http.NewRequest("GET", "/", nil)
			req.SetBasicAuth("alice", aliceToken)
			h.Set("Authorization", req.Header.Get("Authorization"))
			return post(t, r.srv.Client(), r.srv.URL+"/console/decisions/d1", url.Values{"answer": {"approve"}, "csrf": {"forged"}}, h)
		}},
		{name: "basic auth, wrong token", wantStatus: 401, do: func(t *testing.T, r *rig) *http.Response {
			req, _ := http.NewRequest("GET", "/", nil)
			req.SetBasicAuth("alice", bobToken)
			return post(t, r.srv.Client(), r.srv.URL+"/console/decisions/d1", url.Values{"answer": {"approve"}}, req.Header)
		}},
		{name: "bearer needs no csrf", wantStatus: 200, do: func(t *testing.T, r *rig) *http.Response {
			return post(t, r.srv.Client(), r.srv.URL+"/console/decisions/d1", url.Values{"answer": {"deny"}}, http.Header{"Authorization": {"Bearer " + bobToken}})
		}},
		{name: "wrong login", wantStatus: 401, do: func(t *testing.T, r *rig) *http.Response {
			return post(t, r.srv.Client(), r.srv.URL+"/console/login", url.Values{"approver": {"alice"}, "token": {bobToken}}, nil)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.receive(t, testkit.Decision("d1", r.clock.Now()))
			resp := tc.do(t, r)
			resp.Body.Close()
			require.Equal(t, tc.wantStatus, resp.StatusCode)
			if tc.wantStatus == 200 {
				require.Len(t, r.pub.all(), 1)
			} else {
				require.Empty(t, r.pub.all())
			}
		})
	}
}

func login(t *testing.T, r *rig) (*http.Client, string) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &http.Client{Jar: jar}
	resp := post(t, c, r.srv.URL+"/console/login", url.Values{"approver": {"alice"}, "token": {aliceToken}}, nil)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	m := csrfRE.FindStringSubmatch(string(body))
	require.NotNil(t, m, "console page carries a csrf token")
	u, _ := url.Parse(r.srv.URL)
	ck := jar.Cookies(u)
	require.Len(t, ck, 1)
	return c, m[1]
}

func post(t *testing.T, c *http.Client, u string, form url.Values, h http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	return resp
}

// reportsFake renders the reviewer's real report for the incident page.
type reportsFake struct{ src report.Sources }

func (f reportsFake) HTML(context.Context, string) (template.HTML, error) {
	return template.HTML(report.HTMLEmbedded(report.Build(f.src))), nil //nolint:gosec // html/template output
}

// TestIncidentPageShowsEachSectionOnce: with the reviewer's report on the
// page, the title and the checks table appear once, durations are in words,
// and the approve control sits in the decision card, before the report.
func TestIncidentPageShowsEachSectionOnce(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	dec := testkit.Decision("d1", r.clock.Now())
	start := r.clock.Now().Add(-2 * time.Minute)
	r.http = httpport.New(httpport.Options{Desk: r.desk, Approvers: r.approvers, Now: r.clock.Now,
		Logger: slog.New(slog.DiscardHandler), InsecureCookies: true,
		Reports: reportsFake{report.Sources{
			Report: &contracts.ReportV1{IncidentID: dec.IncidentID, Service: dec.Service, Investigator: "rules", Completed: true,
				StartedAt: start, FinishedAt: start.Add(36772770 * time.Nanosecond)},
			Decision: &dec,
		}},
		Links: func(rec approval.Record) view.Links { return view.SigNoz(signozURL, rec.Decision) }})
	srv := httptest.NewServer(r.http.Handler())
	defer srv.Close()
	r.receive(t, dec)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/console/incidents/"+dec.IncidentID, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	page := string(b)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 1, strings.Count(page, "<h1"), "the title once")
	require.Equal(t, 1, strings.Count(page, `<table class="checks"`), "the checks once")
	require.NotContains(t, page, "Policy gate", "the report's own gate section is left to the card")
	require.Contains(t, page, "37 ms")
	require.NotContains(t, page, "36.77")
	require.Less(t, strings.Index(page, `id="approve-d1"`), strings.Index(page, `id="report"`), "approve before the report")
	require.Contains(t, page, "/traces-explorer?compositeQuery=")
	require.Contains(t, page, "15 min left")
}
