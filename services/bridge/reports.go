package bridge

import (
	"context"
	"fmt"
	"html/template"

	"agentk/platform/report"

	"github.com/nats-io/nats.go/jetstream"
)

// kvReports renders the incident reports the reviewer keeps in KV for the
// console's incident page.
type kvReports struct{ kv jetstream.KeyValue }

// HTML implements httpport.Reports.
func (k kvReports) HTML(ctx context.Context, incidentID string) (template.HTML, error) {
	e, err := k.kv.Get(ctx, incidentID)
	if err != nil {
		return "", fmt.Errorf("bridge: report %s: %w", incidentID, err)
	}
	r, err := report.Decode(e.Value())
	if err != nil {
		return "", err
	}
	// HTMLEmbedded escapes every value with html/template; it leaves the title and the gate to the console page.
	return template.HTML(report.HTMLEmbedded(r)), nil //nolint:gosec // produced by html/template
}
