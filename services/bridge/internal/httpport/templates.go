package httpport

import (
	"bytes"
	"html/template"
	"net/http"
	"sort"
	"strings"
	"time"
)

type message struct {
	Title, Text, Back string
}

var funcs = template.FuncMap{
	"inputs": func(m map[string]string) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			if m[k] != "" {
				parts = append(parts, k+"="+m[k])
			}
		}
		return strings.Join(parts, " · ")
	},
	"stamp": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 MST") },
	"short": func(s string) string {
		if len(s) > 12 {
			return s[:12]
		}
		return s
	},
}

const layout = `{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>agentk · {{.}}</title>
<style>body{font:15px/1.45 system-ui,sans-serif;margin:1.2rem auto;max-width:72rem;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.35rem .5rem;text-align:left;vertical-align:top}
.pass{color:#1a7f37}.fail{color:#cf222e}.muted{color:#57606a}form.inline{display:inline}
button,summary.btn{font:inherit;padding:.3rem .9rem;margin-right:.4rem;border-radius:4px;cursor:pointer}
.approve{background:#1a7f37;color:#fff;border:0}.deny{background:#cf222e;color:#fff;border:0}
nav{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #d0d7de;padding-bottom:.4rem}
nav a.home{font-weight:600;font-size:1.1rem;color:inherit;text-decoration:none}
.card{border:1px solid #d0d7de;border-radius:6px;padding:.8rem 1rem;margin:1rem 0}
.top{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.2rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:0}dl.facts dt{color:#57606a}dl.facts dd{margin:0}
details.confirm{display:inline-block}details.confirm summary{list-style:none;display:inline-block}
details.confirm[open] .box{border:2px solid #1a7f37;border-radius:6px;padding:.6rem;margin:.5rem 0}
.answer{margin:.8rem 0}.links ul{margin:.2rem 0;padding-left:1.1rem}
td.inputs{font-size:.85em;color:#57606a;word-break:break-all}h1{font-size:1.5rem;margin:.8rem 0 .2rem}</style>
</head><body>{{end}}
{{define "nav"}}<nav><a class="home" href="/console">agentk approvals</a><div>{{.Approver}}
<form class="inline" method="post" action="/console/logout"><input type="hidden" name="csrf" value="{{.CSRF}}"><button>Sign out</button></form></div></nav>{{end}}
{{define "move"}}{{with .Facts.Current}}<code>{{.}}</code> → {{end}}<code>{{or .Rec.Decision.RollbackTarget "none recorded"}}</code>{{end}}
{{define "burn"}}{{with .Facts.BurnRate}}{{.}}×{{else}}<span class="fail">unreadable (0)</span>{{end}}{{end}}
{{define "answer"}}<div class="answer" id="answer-{{.Rec.DecisionID}}">
<details class="confirm"><summary class="btn approve" id="approve-{{.Rec.DecisionID}}">Approve rollback…</summary>
<div class="box"><form method="post" action="/console/decisions/{{.Rec.DecisionID}}">
<input type="hidden" name="csrf" value="{{.CSRF}}"><input type="hidden" name="digest" value="{{.Rec.Digest}}">{{with .ResolvedSeen}}<input type="hidden" name="resolved_seen" value="{{.}}">{{end}}
<p>{{if .ResolvedSeen}}The alert has resolved: approve only if the service still needs the rollback. {{end}}{{with .Rec.Decision.Origin}}The alert fired on <strong>{{.AlertedService}}</strong>, not on the service rolled back. {{end}}Recreate <strong>{{.Rec.Decision.Service}}</strong> on {{template "move" .}}? Time to answer: {{.Left}}.</p>
<button class="approve" name="answer" value="approve" id="confirm-{{.Rec.DecisionID}}">Yes, roll back</button></form></div></details>
<form class="inline" method="post" action="/console/decisions/{{.Rec.DecisionID}}">
<input type="hidden" name="csrf" value="{{.CSRF}}"><input type="hidden" name="digest" value="{{.Rec.Digest}}">
<button class="deny" name="answer" value="deny" id="deny-{{.Rec.DecisionID}}">Deny</button></form></div>{{end}}
{{define "foot"}}</body></html>{{end}}`

var (
	listTmpl = must("list", `{{template "head" "decisions"}}{{template "nav" .}}
<h1>Open decisions</h1>
{{if not .Open}}<p class="muted" id="no-open">No decision is waiting for an answer.</p>{{else}}
<table id="open"><tr><th>Service</th><th>Diagnosis</th><th>Burn rate</th><th>Rollback</th><th>Time left</th><th></th></tr>
{{range .Open}}<tr><td>{{.Rec.Decision.Service}}{{with .Rec.Decision.Origin}} <span class="muted origin">(the alert is on {{.AlertedService}})</span>{{end}}{{if .Rec.Decision.Shadow}} (shadow){{end}}</td>
<td>{{or .Rec.Decision.Diagnosis "-"}} <span class="muted">({{printf "%.2f" .Rec.Decision.Confidence}})</span></td>
<td>{{template "burn" .}}</td><td>{{template "move" .}}</td><td title="{{stamp .Rec.ExpiresAt}}">{{.Left}}</td>
<td><a id="review-{{.Rec.DecisionID}}" href="/console/incidents/{{.Rec.Decision.IncidentID}}#decision-{{.Rec.DecisionID}}">Review and answer →</a></td></tr>{{end}}</table>{{end}}
<h2>Recent</h2>{{if not .Closed}}<p class="muted">Nothing yet.</p>{{else}}
<table id="closed"><tr><th>Service</th><th>Incident</th><th>Status</th><th>Answer</th><th>Outcome</th></tr>
{{range .Closed}}<tr><td>{{.Rec.Decision.Service}}</td>
<td><a href="/console/incidents/{{.Rec.Decision.IncidentID}}">{{.Rec.Decision.IncidentID}}</a></td>
<td>{{.Status}}</td><td>{{with .Rec.Answer}}{{.Answer}} by {{.Approver}} via {{.Channel}} at {{stamp .AnsweredAt}}{{end}}</td><td>{{.Outcome}}</td></tr>{{end}}</table>{{end}}
<h2>Freezes</h2>{{if .FreezeErr}}<p class="fail">{{.FreezeErr}}</p>{{end}}
{{if .Freezes}}<table id="freezes"><tr><th>Scope</th><th>State</th><th>By</th><th>Reason</th><th>Until</th></tr>
{{range .Freezes}}<tr><td>{{.Scope}}</td><td>{{if .Active}}frozen{{else}}lifted{{end}}</td><td>{{.By}} via {{.Channel}}</td><td>{{.Reason}}</td><td>{{stamp .ExpiresAt}}</td></tr>{{end}}</table>{{end}}
<form method="post" action="/console/freezes" id="freeze-form"><input type="hidden" name="csrf" value="{{.CSRF}}">
<input name="scope" placeholder="service or _global" required> <input name="reason" placeholder="reason" required>
<input name="duration" value="4h" size="6"> <button name="op" value="set">Freeze</button><button name="op" value="lift">Unfreeze</button></form>
{{if .Refused}}<h2>Refused requests</h2><table><tr><th>At</th><th>Channel</th><th>Reason</th></tr>
{{range .Refused}}<tr><td>{{stamp .At}}</td><td>{{.Channel}}</td><td>{{.Reason}}</td></tr>{{end}}</table>{{end}}
{{template "foot"}}`)

	incidentTmpl = must("incident", `{{template "head" .IncidentID}}{{template "nav" .}}
<h1 id="incident">Incident {{.IncidentID}}{{with .Service}}: {{.}}{{end}}</h1>
{{if not .ResolvedAt.IsZero}}<p class="fail" id="resolved"><strong>The alert resolved at {{stamp .ResolvedAt}}.</strong> The service may have recovered on its own: an approval given here confirms the rollback after the resolve.</p>{{end}}
{{range .Rows}}{{$d := .Rec.Decision}}<section class="card decision" id="decision-{{.Rec.DecisionID}}">
<div class="top"><div>
<h2>{{if eq $d.Verdict "allow"}}Rollback allowed by the gate{{else}}Rollback denied by the gate{{end}}{{with $d.Origin}}: {{$d.Service}}, where the failures of {{.AlertedService}} begin{{end}}{{if $d.Shadow}} (shadow: nothing will be acted on){{end}}</h2>
{{with $d.Origin}}<p class="origin" id="origin-{{$d.DecisionID}}"><strong>Why {{$d.Service}} and not {{.AlertedService}}:</strong> {{.Reason}}</p>{{end}}
<dl class="facts"><dt>Status</dt><dd><strong class="status">{{.Status}}</strong>{{with .Rec.Answer}}: {{.Answer}} by {{.Approver}} via {{.Channel}} at {{stamp .AnsweredAt}}{{end}}</dd>
<dt>Diagnosis</dt><dd><em>{{or $d.Diagnosis "-"}}</em>, confidence {{printf "%.2f" $d.Confidence}}</dd>
<dt>Burn rate</dt><dd>{{template "burn" .}}{{with .Facts.BurnThreshold}} <span class="muted">(threshold {{.}})</span>{{end}}</dd>
<dt>Rollback</dt><dd>{{template "move" .}}</dd>
{{if .Open}}<dt>Time left</dt><dd class="left" title="{{stamp .Rec.ExpiresAt}}">{{.Left}}</dd>{{end}}
{{with .Outcome}}<dt>Outcome</dt><dd class="outcome">{{.}}</dd>{{end}}
{{with .Rec.Action}}<dt>Move made</dt><dd>{{or .FromImage "-"}} → {{or .ToImage "-"}}, container on target image: {{if .ContainerVerified}}yes{{else}}no{{end}}{{with .Reason}}; {{.}}{{end}}</dd>{{end}}
{{with .Took}}<dt>Took</dt><dd>{{.}}</dd>{{end}}
<dt>Decision</dt><dd>{{.Rec.DecisionID}} · digest <code title="{{.Rec.Digest}}">{{short .Rec.Digest}}</code></dd></dl>
{{if .Open}}{{template "answer" (args . $.CSRF $.ResolvedSeen)}}{{end}}
{{with $d.NextStep}}<p><strong>Next step:</strong> {{.}}</p>{{end}}
</div><div class="links"><h3>Check it in SigNoz</h3>
{{if or .Links.Traces .Links.Marker .Links.ErrorLogs .Links.Alert}}<ul>
{{with .Links.Traces}}<li><a href="{{.}}" target="_blank" rel="noopener">Traces of {{$d.Service}} in the incident window</a></li>{{end}}
{{with .Links.Marker}}<li><a href="{{.}}" target="_blank" rel="noopener">The deployment marker's trace</a></li>{{end}}
{{with .Links.ErrorLogs}}<li><a href="{{.}}" target="_blank" rel="noopener">Error logs</a></li>{{end}}
{{with .Links.Alert}}<li><a href="{{.}}" target="_blank" rel="noopener">The alert rule</a></li>{{end}}</ul>
{{else}}<p class="muted">No SigNoz link: the decision carries no incident window.</p>{{end}}</div></div>
<table class="checks"><tr><th>Check</th><th>Result</th><th>Reason</th><th>Inputs</th></tr>
{{range $d.Checks}}<tr><td><code>{{.Name}}</code></td><td class="{{if .Passed}}pass{{else}}fail{{end}}">{{if .Passed}}pass{{else}}FAIL{{end}}</td><td>{{.Reason}}</td><td class="inputs">{{inputs .Inputs}}</td></tr>{{end}}</table>
{{with .Rec.Refusals}}<h3>Refused answers</h3><ul>{{range .}}<li>{{stamp .At}} {{.Channel}} {{.Approver}}{{.Identity}}: {{.Reason}}</li>{{end}}</ul>{{end}}
</section>{{end}}
{{if .Report}}<section id="report"><h2>Investigation and evidence</h2>{{.Report}}</section>{{else}}
<p class="muted" id="report-note">The reviewer's incident report is not available here; above is the gate's signed decision.</p>{{end}}
{{template "foot"}}`)

	messageTmpl = must("message", `{{template "head" .Title}}<h1 id="title">{{.Title}}</h1><p id="message">{{.Text}}</p>
{{with .Back}}<p><a id="back" href="{{.}}">Back</a></p>{{end}}{{template "foot"}}`)

	loginTmpl = must("login", `{{template "head" "sign in"}}<h1>agentk approvals</h1>
{{with .Text}}<p class="fail" id="message">{{.}}</p>{{end}}
<form method="post" action="/console/login"><p><label>Approver <input name="approver" id="approver" autocomplete="username" required></label></p>
<p><label>Token <input name="token" id="token" type="password" autocomplete="current-password" required></label></p>
<p><button id="login">Sign in</button></p></form>{{template "foot"}}`)
)

func must(name, body string) *template.Template {
	f := template.FuncMap{"args": func(r row, csrf, resolvedSeen string) map[string]any {
		return map[string]any{"Rec": r.Rec, "CSRF": csrf, "Facts": r.Facts, "Left": r.Left, "ResolvedSeen": resolvedSeen}
	}}
	for k, v := range funcs {
		f[k] = v
	}
	return template.Must(template.Must(template.New(name).Funcs(f).Parse(layout)).Parse(body))
}

func render(w http.ResponseWriter, status int, t *template.Template, data any) {
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, t.Name(), data); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = b.WriteTo(w)
}
