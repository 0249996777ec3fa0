package report

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"agentk/platform/human"
)

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "|", `\|`, "#", `\#`, "(", `\(`, ")", `\)`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "\n", " ", "\r", " ",
)

// md escapes untrusted text for one Markdown line or table cell.
func md(s string) string { return mdEscaper.Replace(s) }

// safeLink returns link when it is an absolute http(s) URL, else "".
func safeLink(link string) string {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

func ts(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }

func mark(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

// Markdown renders the report for Slack and files.
func Markdown(r Report) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Incident %s: %s\n\n", md(r.IncidentID), md(r.Service))
	p("> **%s** (`%s`)\n\n", md(r.Banner), r.Status)
	for _, section := range []func(Report, func(string, ...any)){alertSection, findingsSection, droppedSection, decisionSection, actionSection, agentSection} {
		section(r, p)
	}
	return b.String()
}

func alertSection(r Report, p func(string, ...any)) {
	a := r.Alert
	if a == nil {
		return
	}
	p("## Alert\n\n")
	p("- **%s** (rule %s, severity %s), %s since %s\n", md(a.Name), md(a.RuleID), md(orDash(a.Severity)), md(a.Status), ts(a.StartsAt))
	p("- Burn rate %s (from %s)\n", num(a.BurnRate), md(orDash(a.BurnRateSource)))
	if l := safeLink(a.GeneratorURL); l != "" {
		p("- [Open the alert in SigNoz](%s)\n", l)
	}
	p("\n")
}

func findingsSection(r Report, p func(string, ...any)) {
	p("## Findings\n\n")
	if r.Infrastructure != "" {
		p("**%s** The findings below are not about the service: agentk could not look.\n\n", md(r.Infrastructure))
	}
	switch {
	case len(r.Kept) == 0 && r.Infrastructure != "":
		p("No claim survived review: the telemetry could not be read. Investigate in SigNoz once it answers.\n\n")
	case len(r.Kept) == 0:
		p("No claim survived review: **insufficient evidence**. Investigate in SigNoz.\n\n")
	}
	for _, c := range r.Kept {
		p("### %s — %s (confidence %s)\n\n%s\n\n", md(c.ID), md(c.Class), num(c.Confidence), md(c.Statement))
		p("| evidence | tool | window | link |\n|---|---|---|---|\n")
		for _, e := range c.Evidence {
			link := "—"
			if l := safeLink(e.Link); l != "" {
				link = "[Open in SigNoz](" + l + ")"
			}
			p("| %s | %s | %s – %s | %s |\n", md(e.ID), md(e.Tool), ts(e.From), ts(e.To), link)
		}
		p("\n")
	}
}

func droppedSection(r Report, p func(string, ...any)) {
	if len(r.Dropped) == 0 {
		return
	}
	p("## Dropped claims\n\n")
	for _, d := range r.Dropped {
		p("- **%s** (%s, confidence %s): %s\n", md(d.ID), md(d.Class), num(d.Confidence), md(d.Statement))
		for _, why := range d.Reasons {
			p("  - %s\n", md(why))
		}
	}
	p("\n")
}

func decisionSection(r Report, p func(string, ...any)) {
	gateSection(r.Decision, p)
	gateSection(r.Derived, p)
	approvalAction(r, p)
}

// gateSection renders one gate decision; a derived one is titled with the
// service it acts on and says why that is not the alerted one.
func gateSection(d *Decision, p func(string, ...any)) {
	if d != nil {
		if o := d.Origin; o != nil {
			p("## Policy gate on %s, where %s's failures begin: %s\n\n", md(d.Service), md(o.AlertedService), md(d.Verdict))
			p("**Why %s and not %s:** %s\n\n", md(d.Service), md(o.AlertedService), md(o.Reason))
		} else {
			p("## Policy gate: %s\n\n", md(d.Verdict))
		}
		p("Diagnosis %s, confidence %s, rollback target %s. Decision %s at %s, valid until %s.\n\n",
			md(orDash(d.Diagnosis)), num(d.Confidence), md(orDash(d.RollbackTarget)), md(d.ID), ts(d.DecidedAt), ts(d.ExpiresAt))
		p("| check | result | reason | inputs |\n|---|---|---|---|\n")
		for _, c := range d.Checks {
			p("| %s | %s | %s | %s |\n", md(c.Name), mark(c.Passed), md(c.Reason), md(inputs(c.Inputs)))
		}
		if d.NextStep != "" {
			p("\n**Next step:** %s\n", md(d.NextStep))
		}
		p("\n")
	}
}

func approvalAction(r Report, p func(string, ...any)) {
	if a := r.Approval; a != nil {
		p("## Approval\n\n%s by %s via %s at %s\n\n", md(a.Answer), md(a.Approver), md(a.Channel), ts(a.AnsweredAt))
	}
}

func actionSection(r Report, p func(string, ...any)) {
	a := r.Action
	if a == nil {
		return
	}
	p("## Action: %s\n\n", md(a.Outcome))
	p("- %s → %s\n", md(orDash(a.FromImage)), md(orDash(a.ToImage)))
	p("- Container runs the target image: %s\n", yesNo(a.ContainerVerified))
	p("- Recovered: %s\n", recovered(a.Recovered))
	if a.Reason != "" {
		p("- Reason: %s\n", md(a.Reason))
	}
	p("- Took %s\n\n", humanMs(a.TotalMs))
}

func agentSection(r Report, p func(string, ...any)) {
	g := r.Agent
	if g == nil {
		return
	}
	p("## The agent's own numbers\n\n")
	p("%s%s: %d tool calls, %d iterations, %d tokens in, %d tokens out, %s", md(g.Investigator), modelText(g.Model),
		g.ToolCalls, g.Iterations, g.TokensIn, g.TokensOut, human.Duration(g.Duration))
	if !g.Completed {
		p(", **incomplete**: %s", md(orDash(g.IncompleteReason)))
	}
	p(".\n")
}

func modelText(m string) string {
	if m == "" {
		return ""
	}
	return " (" + md(m) + ")"
}

func inputs(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func recovered(r *bool) string {
	switch {
	case r == nil:
		return "not verified yet"
	case *r:
		return "yes"
	}
	return "no"
}
