package tools

import (
	"fmt"
	"strings"

	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/facts"
)

// slowLine says which dependencies slowed and by how much, for the model
// and the human; empty when none is kept in peers.
func slowLine(deps []facts.SlowDependency, peers []string) string {
	var parts []string
	for _, d := range deps {
		for _, p := range peers {
			if p == d.Peer {
				parts = append(parts, fmt.Sprintf("%s p95 %.0f ms -> %.0f ms", compact.Quote(d.Peer), d.BeforeMs, d.NowMs))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "dependencies slower at their usual call rate since the onset (client spans, median p95 per minute, baseline -> since): " + strings.Join(parts, ", ")
}

// joinLine appends line l to text on a line of its own; an empty l adds
// nothing.
func joinLine(text, l string) string {
	if l == "" {
		return text
	}
	return strings.TrimPrefix(text+"\n", "\n") + l
}
