package report

import (
	"html/template"
	"slices"
	"strings"

	"agentk/platform/human"
)

func sortStrings(s []string) { slices.Sort(s) }

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"ts": ts, "num": num, "mark": mark, "inputs": inputs, "orDash": orDash, "yesNo": yesNo,
	"recovered": recovered, "safeLink": safeLink, "human": human.Duration, "ms": humanMs,
}).Parse(`{{define "page"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Incident {{.IncidentID}}</title></head>
<body>
{{template "body" .}}</body></html>
{{end}}{{define "body"}}{{if not .Embedded}}<h1>Incident {{.IncidentID}}: {{.Service}}</h1>
{{end}}<p class="banner status-{{.Status}}"><strong>{{.Banner}}</strong></p>
{{with .Alert}}<h2>Alert</h2>
<ul><li><strong>{{.Name}}</strong> (rule {{.RuleID}}, severity {{orDash .Severity}}), {{.Status}} since {{ts .StartsAt}}</li>
<li>Burn rate {{num .BurnRate}} (from {{orDash .BurnRateSource}})</li>
{{with safeLink .GeneratorURL}}<li><a href="{{.}}">Open the alert in SigNoz</a></li>{{end}}</ul>
{{end}}<h2>Findings</h2>
{{with .Infrastructure}}<p class="infrastructure"><strong>{{.}}</strong> The findings below are not about the service: agentk could not look.</p>
{{end}}{{if not .Kept}}{{if .Infrastructure}}<p>No claim survived review: the telemetry could not be read. Investigate in SigNoz once it answers.</p>{{else}}<p>No claim survived review: <strong>insufficient evidence</strong>. Investigate in SigNoz.</p>{{end}}
{{end}}{{range .Kept}}<h3>{{.ID}} — {{.Class}} (confidence {{num .Confidence}})</h3>
<p>{{.Statement}}</p>
<table><tr><th>evidence</th><th>tool</th><th>window</th><th>link</th></tr>
{{range .Evidence}}<tr><td>{{.ID}}</td><td>{{.Tool}}</td><td>{{ts .From}} – {{ts .To}}</td><td>{{with safeLink .Link}}<a href="{{.}}">Open in SigNoz</a>{{else}}—{{end}}</td></tr>
{{end}}</table>
{{end}}{{if .Dropped}}<h2>Dropped claims</h2>
<ul>{{range .Dropped}}<li><strong>{{.ID}}</strong> ({{.Class}}, confidence {{num .Confidence}}): {{.Statement}}<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}</ul></li>
{{end}}</ul>
{{end}}{{if not .Embedded}}{{with .Decision}}<h2>Policy gate: {{.Verdict}}</h2>
<p>Diagnosis {{orDash .Diagnosis}}, confidence {{num .Confidence}}, rollback target {{orDash .RollbackTarget}}. Decision {{.ID}} at {{ts .DecidedAt}}, valid until {{ts .ExpiresAt}}.</p>
<table><tr><th>check</th><th>result</th><th>reason</th><th>inputs</th></tr>
{{range .Checks}}<tr class="{{mark .Passed}}"><td>{{.Name}}</td><td>{{mark .Passed}}</td><td>{{.Reason}}</td><td>{{inputs .Inputs}}</td></tr>
{{end}}</table>
{{with .NextStep}}<p><strong>Next step:</strong> {{.}}</p>{{end}}
{{end}}{{with .Derived}}{{$dd := .}}<h2>Policy gate on {{.Service}}, where {{with .Origin}}{{.AlertedService}}{{end}}'s failures begin: {{.Verdict}}</h2>
{{with .Origin}}<p><strong>Why {{$dd.Service}} and not {{.AlertedService}}:</strong> {{.Reason}}</p>{{end}}
<p>Diagnosis {{orDash .Diagnosis}}, confidence {{num .Confidence}}, rollback target {{orDash .RollbackTarget}}. Decision {{.ID}} at {{ts .DecidedAt}}, valid until {{ts .ExpiresAt}}.</p>
<table><tr><th>check</th><th>result</th><th>reason</th><th>inputs</th></tr>
{{range .Checks}}<tr class="{{mark .Passed}}"><td>{{.Name}}</td><td>{{mark .Passed}}</td><td>{{.Reason}}</td><td>{{inputs .Inputs}}</td></tr>
{{end}}</table>
{{with .NextStep}}<p><strong>Next step:</strong> {{.}}</p>{{end}}
{{end}}{{end}}{{with .Approval}}<h2>Approval</h2>
<p>{{.Answer}} by {{.Approver}} via {{.Channel}} at {{ts .AnsweredAt}}</p>
{{end}}{{with .Action}}<h2>Action: {{.Outcome}}</h2>
<ul><li>{{orDash .FromImage}} → {{orDash .ToImage}}</li>
<li>Container runs the target image: {{yesNo .ContainerVerified}}</li>
<li>Recovered: {{recovered .Recovered}}</li>
{{with .Reason}}<li>Reason: {{.}}</li>{{end}}<li>Took {{ms .TotalMs}}</li></ul>
{{end}}{{with .Agent}}<h2>The agent's own numbers</h2>
<p>{{.Investigator}}{{with .Model}} ({{.}}){{end}}: {{.ToolCalls}} tool calls, {{.Iterations}} iterations, {{.TokensIn}} tokens in, {{.TokensOut}} tokens out, {{human .Duration}}{{if not .Completed}}, <strong>incomplete</strong>: {{orDash .IncompleteReason}}{{end}}.</p>
{{end}}{{end}}`))

// HTML renders the report as a self-contained page for the web console.
// Every value is escaped by html/template.
func HTML(r Report) string {
	var b strings.Builder
	if err := page.ExecuteTemplate(&b, "page", rendering{Report: r}); err != nil {
		// The template is fixed and the data is plain values: an error here is a bug.
		panic("report: html: " + err.Error())
	}
	return b.String()
}

// HTMLFragment renders the report's body alone, for embedding in another page
// (the bridge's console). Every value is escaped by html/template.
func HTMLFragment(r Report) string {
	var b strings.Builder
	if err := page.ExecuteTemplate(&b, "body", rendering{Report: r}); err != nil {
		panic("report: html: " + err.Error())
	}
	return b.String()
}

// HTMLEmbedded renders the report's body without its title and without the
// policy gate's section, for a page that shows both itself (the bridge's
// incident page shows the signed decision beside the approve button): each
// appears once.
func HTMLEmbedded(r Report) string {
	var b strings.Builder
	if err := page.ExecuteTemplate(&b, "body", rendering{Report: r, Embedded: true}); err != nil {
		panic("report: html: " + err.Error())
	}
	return b.String()
}

// rendering is what the template sees.
type rendering struct {
	Report
	Embedded bool
}
