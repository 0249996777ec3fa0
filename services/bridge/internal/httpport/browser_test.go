package httpport_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
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

// TestConsoleInABrowser: an approver signs in, approves a decision through the
// console form, and reads the incident report page, in headless Chromium.
func TestConsoleInABrowser(t *testing.T) {
	exe := chromium(t)
	r := newRig(t)
	r.receive(t, testkit.Decision("d1", r.clock.Now()))

	actx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("no-proxy-server", true))...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(r.srv.URL+"/console"),
		chromedp.WaitVisible(chromedp.ID("approver")), // redirected to sign in
		chromedp.SendKeys(chromedp.ID("approver"), "alice"),
		chromedp.SendKeys(chromedp.ID("token"), aliceToken),
		chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.ID("open")),
		chromedp.Click(chromedp.ID("approve-d1")),
		chromedp.WaitVisible(chromedp.ID("title")),
	))
	text := func(sel chromedp.CSS) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(sel))
		require.NoError(t, err)
		return v
	}
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

	outs := r.pub.all()
	require.Len(t, outs, 1)
	var a contracts.ApprovalV1
	_, err := r.keys.Keyring.Open(outs[0].env.Marshal(), contracts.SubjectApproval, envelope.RoleBridge, r.clock.Now(), &a)
	require.NoError(t, err)
	require.Equal(t, contracts.ChannelWeb, a.Channel)
	require.Equal(t, "alice", a.Approver)
	// The Slack message is rewritten for an answer given elsewhere.
	require.Equal(t, 1, r.slack.Messages()[0].Updates)
}
