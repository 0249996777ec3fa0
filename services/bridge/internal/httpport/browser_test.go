package httpport_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/bridge/client"
	"agentk/services/bridge/internal/testkit"
)

func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("AGENTK_REQUIRE_BROWSER") == "1" {
		t.Fatal("AGENTK_REQUIRE_BROWSER=1 but no chromium found (apt-get install -y chromium)")
	}
	t.Skip("no chromium on PATH: skipping the browser test (set AGENTK_REQUIRE_BROWSER=1 to fail instead)")
	return ""
}

// browser starts headless Chromium for one test.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900), chromedp.Flag("no-proxy-server", true))...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// screenshot saves a full-page PNG under AGENTK_SCREENSHOT_DIR (a temporary
// folder when unset) and returns its path.
func screenshot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	dir := os.Getenv("AGENTK_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	path := filepath.Join(dir, name+".png")
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
	return path
}

// TestConsoleInABrowser: an approver signs in, sees the open decision's
// diagnosis, burn rate, move and time left in the list, opens the incident
// page, and approves there, beside the evidence and the checks, with one
// confirmation, in headless Chromium.
func TestConsoleInABrowser(t *testing.T) {
	ctx := browser(t)
	r := newRig(t)
	r.receive(t, testkit.Decision("d1", r.clock.Now()))

	text := func(sel chromedp.CSS) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(sel))
		require.NoError(t, err)
		return v
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+"`"+sel+"`"+`).length`))
		require.NoError(t, err)
		return n
	}
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(r.srv.URL+"/console"),
		chromedp.WaitVisible(chromedp.ID("approver")), // redirected to sign in
		chromedp.SendKeys(chromedp.ID("approver"), "alice"),
		chromedp.SendKeys(chromedp.ID("token"), aliceToken),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.ID("open")),
	))
	list := text("#open")
	for _, want := range []string{"checkout", "bad_deploy", "(0.86)", "14.2×", "registry.test/checkout:1.4.2", "15 min left"} {
		require.Contains(t, list, want)
	}
	require.Zero(t, count("#open button"), "the list offers no approve button: approving happens beside the evidence")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("review-d1")),
		chromedp.WaitVisible(chromedp.ID("incident")),
	))
	require.Equal(t, 1, count("h1#incident"), "the title once")
	require.Equal(t, 1, count("table.checks"), "the checks once")
	require.NotContains(t, text("body"), "36.77", "no raw durations")
	// Approve and the evidence are in the first screen, not below the fold.
	approveTop, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.getElementById("approve-d1").getBoundingClientRect().top`))
	require.NoError(t, err)
	linksTop, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector("#decision-d1 .links").getBoundingClientRect().top`))
	require.NoError(t, err)
	require.Less(t, approveTop, 900.0)
	require.Less(t, linksTop, 900.0)

	// One confirmation: "Approve rollback…" opens it, "Yes, roll back" sends.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("approve-d1")),
		chromedp.WaitVisible(chromedp.ID("confirm-d1")),
	))
	require.Contains(t, text("#answer-d1"), "Recreate checkout on")
	screenshot(t, ctx, "console-incident")
	require.Empty(t, r.pub.all(), "opening the confirmation answers nothing")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("confirm-d1")),
		chromedp.WaitVisible(chromedp.ID("title")),
	))
	title, message := text("#title"), text("#message")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("back")),
		chromedp.WaitVisible(chromedp.ID("incident")),
	))
	status, report := text("#decision-d1 .status"), text("#decision-d1")
	require.Equal(t, "Answer recorded", title)
	require.Contains(t, message, "approve of d1 by alice")
	require.Equal(t, "answered", status)
	require.Contains(t, report, "approve by alice via web")
	require.Contains(t, report, "deployment_related")
	require.Zero(t, count("#approve-d1"), "an answered decision offers no button")

	outs := r.pub.all()
	require.Len(t, outs, 1)
	var a contracts.ApprovalV1
	_, err = r.keys.Keyring.Open(outs[0].env.Marshal(), contracts.SubjectApproval, r.clock.Now(), &a)
	require.NoError(t, err)
	require.Equal(t, contracts.ChannelWeb, a.Channel)
	require.Equal(t, "alice", a.Approver)
	// The Slack message is rewritten for an answer given elsewhere.
	require.Equal(t, 1, r.slack.Messages()[0].Updates)
}

// TestSlackMessageInABrowser renders the Slack messages (their Block Kit
// JSON, as the fake Slack received it) as Slack lays them out, and
// screenshots them, so a human can look at what the on-call sees: the
// posted decision, then the same message once approved and acted on, with
// the deployer's outcome in its thread.
func TestSlackMessageInABrowser(t *testing.T) {
	ctx := browser(t)
	r := newRig(t)
	dec := testkit.Decision("d1", r.clock.Now())
	m := r.receive(t, dec)
	pages := map[string]string{"/posted": blockKitHTML(t, m.Blocks)}

	_, err := client.Answer(t.Context(), r.srv.URL, aliceToken, "d1", "approve")
	require.NoError(t, err)
	yes := true
	act := testkit.Action("act-1", dec, contracts.OutcomeRolledBack, &yes, r.clock.Now())
	require.NoError(t, r.desk.ReceiveAction(t.Context(), testkit.SealAction(t, r.keys.Deployer, act, r.clock.Now())))
	msgs := r.slack.Messages()
	require.Len(t, msgs, 2)
	require.Equal(t, msgs[0].TS, msgs[1].ThreadTS)
	pages["/done"] = blockKitHTML(t, msgs[0].Blocks) + blockKitHTML(t, msgs[1].Blocks)

	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(pages[r.URL.Path]))
	}))
	defer page.Close()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(page.URL+"/posted"), chromedp.WaitVisible(chromedp.ID("message"))))
	header, err := chromedp.Run(ctx, chromedp.Text(".header"))
	require.NoError(t, err)
	require.Equal(t, "Rollback awaits approval: checkout", header)
	screenshot(t, ctx, "slack-message")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(page.URL+"/done"), chromedp.WaitVisible(chromedp.ID("message"))))
	header, err = chromedp.Run(ctx, chromedp.Text(".header"))
	require.NoError(t, err)
	require.Equal(t, "Rolled back and recovered: checkout", header)
	screenshot(t, ctx, "slack-answered-and-thread")
}
