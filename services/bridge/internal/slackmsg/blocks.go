// Package slackmsg builds the Block Kit messages the bridge posts and parses
// the block_actions interactions Slack sends back. It does no I/O.
//
// Every text is cut to Block Kit's limits (limits.go): Slack refuses a whole
// message for one field that is a character too long, and a refused message
// is an incident nobody sees.
package slackmsg

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"agentk/contracts"
	"agentk/platform/human"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/view"
)

// Action ids of the two buttons; block_actions payloads name them.
const (
	ActionApprove = "agentk_approve"
	ActionDeny    = "agentk_deny"
	// ActionApproveResolved is the approve button of a message rewritten
	// after the alert resolved; its value also carries the resolve time
	// shown (ResolvedButtonValue), the human's re-confirmation.
	ActionApproveResolved = "agentk_approve_resolved"
	// ActionFreeze is the "Freeze service" button; its value is the service.
	ActionFreeze = "agentk_freeze"
	// BlockFreeze is the block id of the actions block holding it.
	BlockFreeze = "agentk_freeze"
	// BlockAnswer is the block id of the actions block holding the buttons.
	BlockAnswer = "agentk_answer"
	// BlockLinks holds the SigNoz link buttons; their action ids start with
	// ActionLinkPrefix. Slack still sends an interaction for a link button,
	// which the bridge acknowledges and ignores.
	BlockLinks       = "agentk_links"
	ActionLinkPrefix = "agentk_link_"
)

// ButtonValue is the value both buttons carry: the decision id and the digest
// of the decision the human saw, so an answer binds to exactly that decision.
func ButtonValue(decisionID, digest string) string { return decisionID + "|" + digest }

// ResolvedButtonValue is the value of the "Approve anyway (alert resolved)"
// button: ButtonValue and the resolve time the message shows, so that only a
// click on that button confirms the rollback after the resolve.
func ResolvedButtonValue(decisionID, digest string, resolvedAt time.Time) string {
	return ButtonValue(decisionID, digest) + "|" + resolvedAt.UTC().Format(time.RFC3339Nano)
}

// Links are where a human can read more (view.Links).
type Links = view.Links

// Decision returns the message for a newly received decision: for an allowed
// one the summary, the six checks, evidence links, the rollback target and the
// Approve / Deny buttons; for a denied one the same facts and the gate's next
// step, with no buttons.
func Decision(rec approval.Record, links Links) (string, []slack.Block) {
	d := rec.Decision
	blocks := summary(rec, links, headline(rec))
	svc := d.Service
	if d.Verdict == contracts.VerdictAllow && runes(ButtonValue(d.DecisionID, rec.Digest)) > MaxButtonValue {
		// A button cannot carry this decision's id: never cut it into the id
		// of another. The console and the CLI can still answer it.
		blocks = append(blocks, section("*Answer in the console or with `agentk approve`:* the decision id is too long for a Slack button."),
			context(fmt.Sprintf("Expires %s. One answer is accepted.", stamp(rec.ExpiresAt))))
		return text(fmt.Sprintf("agentk: rollback of %s awaits approval (decision %s)", svc+alertedOn(d), d.DecisionID)), blocks
	}
	if d.Verdict == contracts.VerdictAllow && !rec.ResolvedAt.IsZero() {
		return resolvedDecision(rec, blocks)
	}
	if d.Verdict == contracts.VerdictAllow {
		approve := slack.NewButtonBlockElement(ActionApprove, ButtonValue(d.DecisionID, rec.Digest),
			plain("Approve rollback", MaxButtonText)).WithStyle(slack.StylePrimary).
			WithConfirm(confirm("Roll back "+svc+"?",
				fmt.Sprintf("Recreate *%s* on `%s`.", esc(svc), esc(targetOr(d.RollbackTarget))),
				"Roll back"))
		blocks = append(blocks,
			slack.NewActionBlock(BlockAnswer, approve, denyButton(rec)),
			slack.NewActionBlock(BlockFreeze, freezeButton(svc)),
			context(expiry(rec)))
		return text(fmt.Sprintf("agentk: rollback of %s awaits approval (decision %s)", svc+alertedOn(d), d.DecisionID)), blocks
	}
	next := d.NextStep
	if next == "" {
		next = "Investigate by hand; no automated action will be taken."
	}
	blocks = append(blocks, section("*Next step:* "+esc(next)))
	if svc != "" {
		blocks = append(blocks, slack.NewActionBlock(BlockFreeze, freezeButton(svc)))
	}
	return text(fmt.Sprintf("agentk: rollback of %s denied by the gate (decision %s)", svc+alertedOn(d), d.DecisionID)), blocks
}

// resolvedDecision is an open decision's message once its alert resolved
// (rec.ResolvedAt): the resolve said first, and the approve button replaced
// by "Approve anyway (alert resolved)", which carries the resolve time as the
// human's re-confirmation. The plain approve button is gone: an old click on
// it is refused (by the bridge, and by the deployer's resolved-since check).
func resolvedDecision(rec approval.Record, blocks []slack.Block) (string, []slack.Block) {
	d := rec.Decision
	svc := d.Service
	at := stamp(rec.ResolvedAt)
	value := ResolvedButtonValue(d.DecisionID, rec.Digest, rec.ResolvedAt)
	notice := section(fmt.Sprintf("*The alert resolved at %s.* The service may have recovered on its own: "+
		"an approval now needs re-confirmation after the resolve.", at))
	if runes(value) > MaxButtonValue {
		blocks = append(append([]slack.Block{blocks[0], notice}, blocks[1:]...), section("*Answer in the console or with `agentk approve`:* the decision id is too long for a Slack button."),
			context(expiry(rec)))
		return text(fmt.Sprintf("agentk: the alert of %s resolved at %s; approval needs re-confirmation (decision %s)", svc, at, d.DecisionID)), blocks
	}
	approve := slack.NewButtonBlockElement(ActionApproveResolved, value,
		plain("Approve anyway (alert resolved)", MaxButtonText)).
		WithConfirm(confirm("Roll back "+svc+" after the resolve?",
			fmt.Sprintf("The alert resolved at %s. Recreate *%s* on `%s` anyway?", at, esc(svc), esc(targetOr(d.RollbackTarget))),
			"Roll back anyway"))
	// The resolve goes right under the header, before the facts.
	blocks = append(append([]slack.Block{blocks[0], notice}, blocks[1:]...),
		slack.NewActionBlock(BlockAnswer, approve, denyButton(rec)),
		slack.NewActionBlock(BlockFreeze, freezeButton(svc)),
		context(expiry(rec)))
	return text(fmt.Sprintf("agentk: the alert of %s resolved at %s; approval needs re-confirmation (decision %s)", svc, at, d.DecisionID)), blocks
}

func denyButton(rec approval.Record) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(ActionDeny, ButtonValue(rec.Decision.DecisionID, rec.Digest),
		plain("Deny", MaxButtonText)).WithStyle(slack.StyleDanger)
}

// expiry says when the decision stops taking answers, in words and as a time.
func expiry(rec approval.Record) string {
	s := "Expires " + stamp(rec.ExpiresAt)
	if !rec.ReceivedAt.IsZero() && rec.ExpiresAt.After(rec.ReceivedAt) {
		s += ", " + human.Duration(rec.ExpiresAt.Sub(rec.ReceivedAt)) + " after it was posted"
	}
	return s + ". One answer is accepted."
}

// freezeButton freezes the service for a few hours, confirmed first.
func freezeButton(service string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(ActionFreeze, cut(service, MaxButtonValue), plain("Freeze service", MaxButtonText)).
		WithConfirm(confirm("Freeze "+service+"?",
			fmt.Sprintf("No automated action on *%s* for 4 h (the gate denies, the deployer refuses). Lift it with `agentk unfreeze` or the console.", esc(service)),
			"Freeze"))
}

// confirm builds a confirmation dialog within its limits. The text keeps its
// closing sentence: a long service name is cut, not the instruction.
func confirm(title, text, ok string) *slack.ConfirmationBlockObject {
	return slack.NewConfirmationBlockObject(plain(title, MaxConfirmTitle), mrkdwn(fit(text, MaxConfirmText)),
		plain(ok, MaxConfirmButton), plain("Cancel", MaxConfirmButton))
}

// Answered returns the message that replaces the original once rec is
// answered: the same facts, the buttons replaced by who answered, how and
// when, and, once the deployer reported, what it did.
func Answered(rec approval.Record, links Links) (string, []slack.Block) {
	a := rec.Answer
	if a == nil {
		return Decision(rec, links)
	}
	verb := "Approved"
	if a.Answer == contracts.AnswerDeny {
		verb = "Denied"
	}
	blocks := append(summary(rec, links, headline(rec)),
		section(fmt.Sprintf("*%s* by %s via %s at %s", verb, esc(a.Approver), esc(a.Channel), stamp(a.AnsweredAt))))
	if act := rec.Action; act != nil {
		blocks = append(blocks, section("*Outcome:* "+esc(outcomeLine(*act))))
	} else if a.Answer == contracts.AnswerApprove {
		blocks = append(blocks, context("The deployer's outcome and the recovery verdict will be posted in the thread."))
	}
	msg := fmt.Sprintf("agentk: %s %s for %s", strings.ToLower(verb), rec.DecisionID, rec.Decision.Service)
	if act := rec.Action; act != nil {
		msg += ": " + outcomeLine(*act)
	}
	return text(msg), blocks
}

// Outcome returns the thread reply for the deployer's action on rec: what it
// did, the move it made, whether Docker shows the target image, the recovery
// verdict, how long it took, and where to check.
func Outcome(rec approval.Record, act contracts.ActionV1, links Links) (string, []slack.Block) {
	fields := []*slack.TextBlockObject{
		field("*Outcome*\n" + esc(OutcomeTitle(act))),
		field("*Recovered*\n" + esc(recoveredText(act.Recovered))),
	}
	if act.FromImage != "" || act.ToImage != "" {
		fields = append(fields, field("*Move*\n"+move(act.FromImage, act.ToImage)))
	}
	fields = append(fields,
		field("*Container on target image*\n"+yesNo(act.ContainerVerified)),
		field("*Took*\n"+esc(human.Duration(time.Duration(act.TotalMs)*time.Millisecond))),
		field("*Action*\n"+esc(act.ActionID)))
	blocks := []slack.Block{
		section(fmt.Sprintf("*%s* %s", esc(OutcomeTitle(act)), esc(rec.Decision.Service))),
		slack.NewSectionBlock(nil, fields, nil),
	}
	if act.Reason != "" {
		blocks = append(blocks, section("*Reason:* "+esc(act.Reason)))
	}
	if links.Traces != "" {
		blocks = append(blocks, context(fmt.Sprintf("<%s|Check the traces in SigNoz>", linkSafe(links.Traces))))
	}
	return text(fmt.Sprintf("agentk: %s: %s", rec.Decision.Service, outcomeLine(act))), blocks
}

// headline is the header of the parent message as the incident stands.
func headline(rec approval.Record) string {
	d := rec.Decision
	var h string
	switch {
	case rec.Action != nil:
		h = OutcomeTitle(*rec.Action) + ": " + d.Service
	case rec.Answer != nil && rec.Answer.Answer == contracts.AnswerDeny:
		h = "Rollback denied by " + rec.Answer.Approver + ": " + d.Service
	case rec.Answer != nil:
		h = "Rollback approved by " + rec.Answer.Approver + ": " + d.Service
	case d.Verdict != contracts.VerdictAllow:
		h = "Rollback denied by the gate: " + d.Service
	default:
		h = "Rollback awaits approval: " + d.Service
	}
	if o := d.Origin; o != nil {
		h += " (the alert is on " + o.AlertedService + ")"
	}
	if d.Shadow {
		h = "[SHADOW: nothing will be acted on] " + h
	}
	return h
}

// alertedOn names the alerted service after a derived decision's service
// in a notification's text ("payment for the alert on checkout").
func alertedOn(d contracts.DecisionV1) string {
	if d.Origin == nil {
		return ""
	}
	return " for the alert on " + d.Origin.AlertedService
}

// originSection says, for a derived decision (issue 33), which service it
// acts on and why that is not the alerted one, in the gate's words: "checkout
// burns its budget; 71% of its new failures begin in payment, released 2.2.0
// 5m0s before; roll payment back to 2.1.9?". Nil for any other decision.
func originSection(d contracts.DecisionV1) slack.Block {
	o := d.Origin
	if o == nil {
		return nil
	}
	return section(fit(fmt.Sprintf(":mag: *Acts on %s, not on the alerted %s:* %s", esc(d.Service), esc(o.AlertedService), esc(o.Reason)), MaxSectionText))
}

// OutcomeTitle names what the deployer did, in the words an on-call reads.
func OutcomeTitle(a contracts.ActionV1) string {
	switch a.Outcome {
	case contracts.OutcomeRolledBack:
		switch {
		case a.Recovered == nil:
			return "Rolled back, recovery not verified"
		case *a.Recovered:
			return "Rolled back and recovered"
		default:
			return "Rolled back, NOT recovered"
		}
	case contracts.OutcomeDryRun:
		return "Dry run: rollback planned, nothing changed"
	case contracts.OutcomeShadow:
		return "Shadow: rollback planned, nothing changed"
	case contracts.OutcomeFailed:
		return "Rollback FAILED"
	case contracts.OutcomeRefused:
		return "Rollback refused by the deployer"
	case contracts.OutcomeNone:
		return "No action taken"
	}
	return "Deployer outcome " + a.Outcome
}

func outcomeLine(a contracts.ActionV1) string {
	s := OutcomeTitle(a)
	if a.FromImage != "" || a.ToImage != "" {
		s += " (" + orDash(a.FromImage) + " → " + orDash(a.ToImage) + ")"
	}
	if a.Reason != "" {
		s += ": " + a.Reason
	}
	return s
}

func recoveredText(r *bool) string {
	switch {
	case r == nil:
		return "not checked"
	case *r:
		return "yes: telemetry shows it recovered"
	default:
		return "no: telemetry shows it still failing, act by hand"
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func summary(rec approval.Record, links Links, title string) []slack.Block {
	d := rec.Decision
	f := view.FactsOf(d)
	burn := "unreadable (reads as 0)"
	if f.BurnRate != "" {
		burn = f.BurnRate + "×"
		if f.BurnThreshold != "" {
			burn += " (threshold " + f.BurnThreshold + ")"
		}
	}
	fields := []*slack.TextBlockObject{
		field(fmt.Sprintf("*Diagnosis*\n%s (confidence %.2f)", esc(orDash(d.Diagnosis)), d.Confidence)),
		field("*Burn rate*\n" + esc(burn)),
		field("*Rollback*\n" + move(f.Current, d.RollbackTarget)),
		field("*Incident*\n" + esc(d.IncidentID)),
		field("*Decision*\n" + esc(d.DecisionID)),
	}
	var checks []string
	for _, c := range d.Checks {
		mark := ":white_check_mark:"
		if !c.Passed {
			mark = ":x:"
		}
		checks = append(checks, fmt.Sprintf("%s `%s` %s", mark, esc(c.Name), esc(c.Reason)))
	}
	if len(checks) == 0 {
		checks = append(checks, "_no checks recorded_")
	}
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain(title, MaxHeaderText)),
	}
	if o := originSection(d); o != nil {
		blocks = append(blocks, o)
	}
	if w := infrastructure(d); w != "" {
		blocks = append(blocks, section(":warning: *"+w+"*: agentk could not read the telemetry, so this is about the pipeline's access to SigNoz, not about "+esc(d.Service)+". Check the sandbox's readiness."))
	}
	blocks = append(blocks,
		slack.NewSectionBlock(nil, fields, nil),
		section(lines("*Gate checks*", checks, MaxSectionText)))
	if ev := evidence(d, links); len(ev) > 0 {
		blocks = append(blocks, section(lines("*Evidence*", ev, MaxSectionText)))
	}
	if b := linkButtons(d.Service, links); b != nil {
		blocks = append(blocks, b)
	}
	blocks = append(blocks, context("digest `"+short(rec.Digest)+"`"))
	return blocks
}

// linkButtons are the SigNoz deep links as buttons: an explorer link with
// its query is too long to share a 3,000-character section with others, and
// a button takes a 3,000-character URL of its own. A URL longer than that is
// left out rather than cut into a link that opens the wrong view.
func linkButtons(service string, l Links) *slack.ActionBlock {
	var els []slack.BlockElement
	for _, b := range []struct{ id, label, url string }{
		{ActionLinkPrefix + "traces", "Traces of " + service, l.Traces},
		{ActionLinkPrefix + "marker", "Deployment marker trace", l.Marker},
		{ActionLinkPrefix + "logs", "Error logs", l.ErrorLogs},
		{ActionLinkPrefix + "alert", "Alert rule", l.Alert},
	} {
		if b.url == "" || runes(b.url) > MaxButtonURL {
			continue
		}
		btn := slack.NewButtonBlockElement(b.id, "", plain(b.label, MaxButtonText))
		btn.URL = b.url
		els = append(els, btn)
	}
	if len(els) == 0 {
		return nil
	}
	return slack.NewActionBlock(BlockLinks, els...)
}

// infrastructure returns the words the pipeline uses when SigNoz could not
// be read, if any check says so.
func infrastructure(d contracts.DecisionV1) string {
	for _, w := range []string{contracts.IncompleteSigNozRejected, contracts.IncompleteSigNozUnreachable} {
		for _, c := range d.Checks {
			if strings.Contains(c.Reason, w) {
				return w
			}
		}
	}
	return ""
}

// move renders "current → target" with either side possibly unknown.
func move(from, to string) string {
	if from == "" {
		return "`" + esc(targetOr(to)) + "`"
	}
	return "`" + esc(from) + "` → `" + esc(targetOr(to)) + "`"
}

// evidence lists the report and SigNoz links first, then any http(s) links
// the checks recorded among their inputs, each once, sorted.
func evidence(d contracts.DecisionV1, links Links) []string {
	var out []string
	seen := map[string]bool{}
	add := func(link, label string) {
		if link == "" || seen[link] {
			return
		}
		seen[link] = true
		out = append(out, fmt.Sprintf("<%s|%s>", linkSafe(link), label))
	}
	add(links.Report, "Incident report")
	for _, l := range []string{links.Traces, links.Marker, links.ErrorLogs, links.Alert} {
		seen[l] = true // shown as buttons
	}
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
	return append(out, found...)
}

// lines joins a title and lines within max characters. Each line is cut to
// maxLine first; a line that then does not fit is left out whole (a half
// link is a broken link), and how many were left out is said.
func lines(title string, ls []string, max int) string {
	out := title
	for i, l := range ls {
		cand := out + "\n" + fit(l, maxLine)
		rest := len(ls) - i - 1
		if rest == 0 && runes(cand) <= max {
			return cand
		}
		if runes(cand)+runes(more(rest)) <= max {
			out = cand
			continue
		}
		return out + more(len(ls)-i)
	}
	return out
}

// maxLine bounds one line of a list, so that one long reason cannot push the
// others out of the section.
const maxLine = 700

func more(n int) string { return fmt.Sprintf("\n_…and %d more_", n) }

func section(s string) *slack.SectionBlock {
	return slack.NewSectionBlock(mrkdwn(fit(s, MaxSectionText)), nil, nil)
}

func field(s string) *slack.TextBlockObject { return mrkdwn(fit(s, MaxFieldText)) }

func context(s string) *slack.ContextBlock {
	return slack.NewContextBlock("", mrkdwn(fit(s, MaxContextText)))
}

// text bounds the notification text (it shows in notifications and where
// blocks cannot be shown).
func text(s string) string { return cut(s, MaxMessageText) }

// plain is a plain_text object cut to max characters.
func plain(s string, max int) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, cut(s, max), false, false)
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
