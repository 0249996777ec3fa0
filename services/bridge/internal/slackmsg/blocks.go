// Package slackmsg builds the Block Kit messages the bridge posts and parses
// the block_actions interactions Slack sends back. It does no I/O.
package slackmsg

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"agentk/contracts"
	"agentk/services/bridge/internal/approval"
)

// Action ids of the two buttons; block_actions payloads name them.
const (
	ActionApprove = "agentk_approve"
	ActionDeny    = "agentk_deny"
	// ActionFreeze is the "Freeze service" button; its value is the service.
	ActionFreeze = "agentk_freeze"
	// BlockFreeze is the block id of the actions block holding it.
	BlockFreeze = "agentk_freeze"
	// BlockAnswer is the block id of the actions block holding the buttons.
	BlockAnswer = "agentk_answer"
)

// ButtonValue is the value both buttons carry: the decision id and the digest
// of the decision the human saw, so an answer binds to exactly that decision.
func ButtonValue(decisionID, digest string) string { return decisionID + "|" + digest }

// Links are where a human can read more. Empty fields are left out.
type Links struct {
	// Report is the console page of the incident report.
	Report string
}

// Decision returns the message for a newly received decision: for an allowed
// one the summary, the six checks, evidence links, the rollback target and the
// Approve / Deny buttons; for a denied one the same facts and the gate's next
// step, with no buttons.
func Decision(rec approval.Record, links Links) (string, []slack.Block) {
	d := rec.Decision
	blocks := summary(rec, links)
	if d.Verdict == contracts.VerdictAllow {
		approve := slack.NewButtonBlockElement(ActionApprove, ButtonValue(d.DecisionID, rec.Digest),
			plain("Approve rollback")).WithStyle(slack.StylePrimary).
			WithConfirm(slack.NewConfirmationBlockObject(
				plain("Roll back "+d.Service+"?"),
				mrkdwn(fmt.Sprintf("Recreate *%s* on `%s`.", esc(d.Service), esc(targetOr(d.RollbackTarget)))),
				plain("Roll back"), plain("Cancel")))
		deny := slack.NewButtonBlockElement(ActionDeny, ButtonValue(d.DecisionID, rec.Digest), plain("Deny")).
			WithStyle(slack.StyleDanger)
		blocks = append(blocks,
			slack.NewActionBlock(BlockAnswer, approve, deny),
			slack.NewActionBlock(BlockFreeze, freezeButton(d.Service)),
			slack.NewContextBlock("", mrkdwn(fmt.Sprintf("Expires %s. One answer is accepted.", stamp(rec.ExpiresAt)))))
		return fmt.Sprintf("agentk: rollback of %s awaits approval (decision %s)", d.Service, d.DecisionID), blocks
	}
	next := d.NextStep
	if next == "" {
		next = "Investigate by hand; no automated action will be taken."
	}
	blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*Next step:* "+esc(next)), nil, nil))
	if d.Service != "" {
		blocks = append(blocks, slack.NewActionBlock(BlockFreeze, freezeButton(d.Service)))
	}
	return fmt.Sprintf("agentk: rollback of %s denied by the gate (decision %s)", d.Service, d.DecisionID), blocks
}

// freezeButton freezes the service for a few hours, confirmed first.
func freezeButton(service string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(ActionFreeze, service, plain("Freeze service")).
		WithConfirm(slack.NewConfirmationBlockObject(plain("Freeze "+truncate(service, 60)+"?"),
			mrkdwn(fmt.Sprintf("No automated action on *%s* for 4 h (the gate denies, the deployer refuses). Lift it with `agentk unfreeze` or the console.", esc(service))),
			plain("Freeze"), plain("Cancel")))
}

// Answered returns the message that replaces the original once rec is
// answered: the same facts, the buttons replaced by who answered and how.
func Answered(rec approval.Record, links Links) (string, []slack.Block) {
	a := rec.Answer
	if a == nil {
		return Decision(rec, links)
	}
	verb := "Approved"
	if a.Answer == contracts.AnswerDeny {
		verb = "Denied"
	}
	line := fmt.Sprintf("*%s* by %s via %s at %s", verb, esc(a.Approver), a.Channel, stamp(a.AnsweredAt))
	blocks := append(summary(rec, links), slack.NewSectionBlock(mrkdwn(line), nil, nil))
	return fmt.Sprintf("agentk: %s %s for %s", strings.ToLower(verb), rec.DecisionID, rec.Decision.Service), blocks
}

func summary(rec approval.Record, links Links) []slack.Block {
	d := rec.Decision
	title := "Rollback awaits approval: " + d.Service
	if d.Verdict != contracts.VerdictAllow {
		title = "Rollback denied by the gate: " + d.Service
	}
	if d.Shadow {
		title = "[SHADOW: nothing will be acted on] " + title
	}
	fields := []*slack.TextBlockObject{
		mrkdwn("*Incident*\n" + esc(d.IncidentID)),
		mrkdwn("*Decision*\n" + esc(d.DecisionID)),
		mrkdwn("*Rollback target*\n`" + esc(targetOr(d.RollbackTarget)) + "`"),
		mrkdwn(fmt.Sprintf("*Diagnosis*\n%s (confidence %.2f)", esc(orDash(d.Diagnosis)), d.Confidence)),
	}
	var checks strings.Builder
	for _, c := range d.Checks {
		mark := ":white_check_mark:"
		if !c.Passed {
			mark = ":x:"
		}
		fmt.Fprintf(&checks, "%s `%s` %s\n", mark, c.Name, esc(c.Reason))
	}
	if checks.Len() == 0 {
		checks.WriteString("_no checks recorded_")
	}
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain(truncate(title, 150))),
		slack.NewSectionBlock(nil, fields, nil),
		slack.NewSectionBlock(mrkdwn(truncate("*Gate checks*\n"+checks.String(), 3000)), nil, nil),
	}
	if ev := evidence(d, links); ev != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(truncate("*Evidence*\n"+ev, 3000)), nil, nil))
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn("digest `"+short(rec.Digest)+"`")))
	return blocks
}

// evidence lists the report link and any http(s) links the checks recorded
// among their inputs (SigNoz trace and log views), each once, sorted.
func evidence(d contracts.DecisionV1, links Links) string {
	var b strings.Builder
	if links.Report != "" {
		fmt.Fprintf(&b, "<%s|Incident report>\n", links.Report)
	}
	seen := map[string]bool{}
	var found []string
	for _, c := range d.Checks {
		for k, v := range c.Inputs {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || seen[v] {
				continue
			}
			seen[v] = true
			found = append(found, fmt.Sprintf("<%s|%s: %s>", linkSafe(v), esc(c.Name), esc(k)))
		}
	}
	sort.Strings(found)
	for _, l := range found {
		b.WriteString(l + "\n")
	}
	return b.String()
}

func plain(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, s, false, false)
}

func mrkdwn(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, false)
}

// esc escapes the three characters Slack's mrkdwn treats as control sequences,
// so text from a decision can never form a link or a mention.
func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func linkSafe(s string) string {
	return strings.NewReplacer("|", "%7C", ">", "%3E", "<", "%3C").Replace(s)
}

func targetOr(t string) string {
	if t == "" {
		return "none recorded"
	}
	return t
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 MST") }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s[:n-3])
	return string(r[:len(r)-1]) + "..."
}
