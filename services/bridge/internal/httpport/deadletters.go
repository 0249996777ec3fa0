package httpport

import (
	"context"
	"net/http"
	"time"

	"agentk/platform/bus"
)

// DeadLetters lists the newest dead letters, oldest first.
type DeadLetters interface {
	DeadLetters(ctx context.Context) ([]bus.DeadLetter, error)
}

type deadLettersPage struct {
	Approver string
	CSRF     string
	Letters  []bus.DeadLetter
	Now      time.Time
}

// deadLettersTmpl is its own page (not a section of the list) so the
// incident pages can change without touching it. html/template escapes every
// value; the error text may quote hostile content.
var deadLettersTmpl = must("deadletters", `{{template "head" "dead letters"}}{{template "nav" .}}
<h2>Dead letters</h2>
<p class="muted">Messages a service could not process. Each was set aside (and acknowledged) so the pipeline went on; nothing here was acted on. <code>agentk deadletters</code> lists the same.</p>
{{if .Letters}}<table id="deadletters"><tr><th>#</th><th>when</th><th>subject</th><th>handler</th><th>reason</th><th>incident</th><th>error</th></tr>
{{range .Letters}}<tr><td>{{.Seq}}</td><td>{{.At.Format "2006-01-02 15:04:05Z07:00"}}</td><td>{{.Subject}}</td><td>{{.Handler}}</td><td class="fail">{{.Reason}}</td>
<td>{{if .IncidentID}}<a href="/console/incidents/{{.IncidentID}}">{{.IncidentID}}</a>{{else}}—{{end}}</td><td><code>{{.Error}}</code></td></tr>
{{end}}</table>{{else}}<p id="no-deadletters">No dead letters.</p>{{end}}
{{template "foot"}}`)

func (s *Server) consoleDeadLetters(w http.ResponseWriter, r *http.Request) {
	p, ok := s.requireLogin(w, r)
	if !ok {
		return
	}
	if s.o.DeadLetters == nil {
		http.Error(w, "dead letters unavailable", http.StatusServiceUnavailable)
		return
	}
	dls, err := s.o.DeadLetters.DeadLetters(r.Context())
	if err != nil {
		s.o.Logger.ErrorContext(r.Context(), "console: dead letters", "err", err)
		http.Error(w, "dead letters unavailable", http.StatusServiceUnavailable)
		return
	}
	// Newest first, as the decision list.
	for i, j := 0, len(dls)-1; i < j; i, j = i+1, j-1 {
		dls[i], dls[j] = dls[j], dls[i]
	}
	render(w, http.StatusOK, deadLettersTmpl, deadLettersPage{Approver: p.name, CSRF: s.csrfToken(p), Letters: dls, Now: s.o.Now()})
}
