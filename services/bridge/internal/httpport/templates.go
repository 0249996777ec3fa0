package httpport

import (
	"bytes"
	"html/template"
	"net/http"
	"time"
)

type message struct {
	Title, Text, Back string
}

var funcs = template.FuncMap{
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
<style>body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:64rem;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.35rem .5rem;text-align:left;vertical-align:top}
.pass{color:#1a7f37}.fail{color:#cf222e}.muted{color:#57606a}form.inline{display:inline}
button{font:inherit;padding:.25rem .8rem;margin-right:.4rem}button.approve{background:#1a7f37;color:#fff;border:0}
button.deny{background:#cf222e;color:#fff;border:0}header{display:flex;justify-content:space-between;align-items:center}</style>
</head><body>{{end}}
{{define "nav"}}<header><h1><a href="/console">agentk approvals</a></h1><div>{{.Approver}}
<form class="inline" method="post" action="/console/logout"><input type="hidden" name="csrf" value="{{.CSRF}}"><button>Sign out</button></form></div></header>{{end}}
{{define "answer"}}<form class="inline" method="post" action="/console/decisions/{{.Rec.DecisionID}}">
<input type="hidden" name="csrf" value="{{.CSRF}}"><input type="hidden" name="digest" value="{{.Rec.Digest}}">
<button class="approve" name="answer" value="approve" id="approve-{{.Rec.DecisionID}}">Approve rollback</button>
<button class="deny" name="answer" value="deny" id="deny-{{.Rec.DecisionID}}">Deny</button></form>{{end}}
{{define "foot"}}</body></html>{{end}}`

var (
	listTmpl = must("list", `{{template "head" "decisions"}}{{template "nav" .}}
<h2>Open decisions</h2>
{{if not .Open}}<p class="muted" id="no-open">No decision is waiting for an answer.</p>{{else}}
<table id="open"><tr><th>Service</th><th>Incident</th><th>Rollback target</th><th>Expires</th><th></th></tr>
{{range .Open}}<tr><td>{{.Rec.Decision.Service}}</td>
<td><a href="/console/incidents/{{.Rec.Decision.IncidentID}}">{{.Rec.Decision.IncidentID}}</a></td>
<td><code>{{.Rec.Decision.RollbackTarget}}</code></td><td>{{stamp .Rec.ExpiresAt}}</td>
<td>{{template "answer" (args . $.CSRF)}}</td></tr>{{end}}</table>{{end}}
<h2>Recent</h2>{{if not .Closed}}<p class="muted">Nothing yet.</p>{{else}}
<table id="closed"><tr><th>Service</th><th>Incident</th><th>Status</th><th>Answer</th></tr>
{{range .Closed}}<tr><td>{{.Rec.Decision.Service}}</td>
<td><a href="/console/incidents/{{.Rec.Decision.IncidentID}}">{{.Rec.Decision.IncidentID}}</a></td>
<td>{{.Status}}</td><td>{{with .Rec.Answer}}{{.Answer}} by {{.Approver}} via {{.Channel}} at {{stamp .AnsweredAt}}{{end}}</td></tr>{{end}}</table>{{end}}
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
<h2 id="incident">Incident {{.IncidentID}}</h2>
{{if not .ResolvedAt.IsZero}}<p class="fail" id="resolved"><strong>The alert resolved at {{stamp .ResolvedAt}}.</strong> The service may have recovered on its own: an approval given here confirms the rollback after the resolve.</p>{{end}}
{{if .Report}}<section id="report">{{.Report}}</section>{{else}}
<p class="muted" id="report-note">The reviewer's incident report is not available here; below is the gate's signed decision.</p>{{end}}
{{range .Rows}}{{$d := .Rec.Decision}}<section class="decision" id="decision-{{.Rec.DecisionID}}">
<h3>Decision {{.Rec.DecisionID}}: {{$d.Verdict}} {{$d.Action}} of {{$d.Service}}{{if $d.Shadow}} (shadow){{end}}</h3>
<p>Status: <strong class="status">{{.Status}}</strong>{{with .Rec.Answer}}: {{.Answer}} by {{.Approver}} via {{.Channel}} at {{stamp .AnsweredAt}}{{end}}.
Diagnosis <em>{{$d.Diagnosis}}</em>, confidence {{printf "%.2f" $d.Confidence}}. Rollback target <code>{{$d.RollbackTarget}}</code>.
Expires {{stamp .Rec.ExpiresAt}}. Digest <code title="{{.Rec.Digest}}">{{short .Rec.Digest}}</code>.</p>
{{with $d.NextStep}}<p><strong>Next step:</strong> {{.}}</p>{{end}}
<table class="checks"><tr><th>Check</th><th>Result</th><th>Reason</th></tr>
{{range $d.Checks}}<tr><td><code>{{.Name}}</code></td><td class="{{if .Passed}}pass{{else}}fail{{end}}">{{if .Passed}}pass{{else}}FAIL{{end}}</td><td>{{.Reason}}</td></tr>{{end}}</table>
{{if .Open}}<p>{{if $.ResolvedSeen}}<form class="inline" method="post" action="/console/decisions/{{.Rec.DecisionID}}">
<input type="hidden" name="csrf" value="{{$.CSRF}}"><input type="hidden" name="digest" value="{{.Rec.Digest}}"><input type="hidden" name="resolved_seen" value="{{$.ResolvedSeen}}">
<button class="approve" name="answer" value="approve" id="approve-{{.Rec.DecisionID}}">Approve rollback although the alert resolved</button>
<button class="deny" name="answer" value="deny" id="deny-{{.Rec.DecisionID}}">Deny</button></form>{{else}}{{template "answer" (args . $.CSRF)}}{{end}}</p>{{end}}
{{with .Rec.Refusals}}<h4>Refused answers</h4><ul>{{range .}}<li>{{stamp .At}} {{.Channel}} {{.Approver}}{{.Identity}}: {{.Reason}}</li>{{end}}</ul>{{end}}
</section>{{end}}{{template "foot"}}`)

	messageTmpl = must("message", `{{template "head" .Title}}<h1 id="title">{{.Title}}</h1><p id="message">{{.Text}}</p>
{{with .Back}}<p><a id="back" href="{{.}}">Back</a></p>{{end}}{{template "foot"}}`)

	loginTmpl = must("login", `{{template "head" "sign in"}}<h1>agentk approvals</h1>
{{with .Text}}<p class="fail" id="message">{{.}}</p>{{end}}
<form method="post" action="/console/login"><p><label>Approver <input name="approver" id="approver" autocomplete="username" required></label></p>
<p><label>Token <input name="token" id="token" type="password" autocomplete="current-password" required></label></p>
<p><button id="login">Sign in</button></p></form>{{template "foot"}}`)
)

func must(name, body string) *template.Template {
	f := template.FuncMap{"args": func(r row, csrf string) map[string]any {
		return map[string]any{"Rec": r.Rec, "CSRF": csrf}
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
