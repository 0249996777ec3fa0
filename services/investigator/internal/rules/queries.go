package rules

import (
	"encoding/json"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// The follow-up queries the rules ask after the minimum plan, by call id.
// Each is an aggregate of span durations or counts over the incident window,
// split at the onset the overview measured, so that the rules read the
// latency shape (which spans slowed, and how much) and where errors are
// (which spans fail, of which kind), not one corpus's wording.
const (
	qBefore = "rules-before" // p95 by span name and kind, before the onset
	qAfter  = "rules-after"  // p95 by span name and kind, after the onset
	qModel  = "rules-model"  // p95 of spans with gen_ai.request.model, by name
	qErrors = "rules-errors" // failing spans by name and kind, after the onset
	// Client calls by server.address (semconv ≥ 1.21) and net.peer.name
	// (before), before and after the onset: a host called only after it is
	// new. (service.version would say it more directly, but the sandbox
	// refuses it as a group_by key.)
	qHostsBefore = "rules-hosts-before"
	qHostsAfter  = "rules-hosts-after"
	qPeersBefore = "rules-peers-before"
	qPeersAfter  = "rules-peers-after"
	// qChange: the deployment markers by deployment.type, which says
	// whether a release changed code or configuration.
	qChange = "rules-change"
	// The ordinary entry spans (server, consumer; no error, under SlowRatio
	// times the slowest entry span's p95 before the onset) before and
	// after the onset: a sampler that keeps every failing or slow trace
	// multiplies the kept count of a regression, not of its ordinary
	// requests (ordinary.go).
	qOrdinaryBefore = "rules-ordinary-before"
	qOrdinaryAfter  = "rules-ordinary-after"
)

// NoOnsetLead is how long before the alert's start the "before" side of the
// follow-ups ends when the overview measured no onset. A burn-rate alert
// fires minutes after the regression began (a multiwindow alert's short
// window is 5 minutes), so a baseline that runs up to the alert holds the
// regression's first minutes: a slowed dependency span then looks slow on
// both sides and dominates nothing. Twice that short window is left out.
const NoOnsetLead = 10 * time.Minute

// splitAt is where the follow-ups compare before with after: both at the
// onset the overview measured; when it found none, after from the alert's
// start and before up to NoOnsetLead earlier.
func splitAt(s loop.State) (beforeEnd, afterFrom time.Time) {
	for _, e := range s.Evidence {
		if e.Tool == contracts.ToolServiceOverview && e.Facts.Onset != nil {
			return *e.Facts.Onset, *e.Facts.Onset
		}
	}
	return s.Alert.StartsAt.Add(-NoOnsetLead), s.Alert.StartsAt
}

func aggregate(id string, args contracts.ToolArgs) (loop.ToolRequest, error) {
	b, err := json.Marshal(args)
	return loop.ToolRequest{ID: id, Tool: contracts.ToolAggregateTraces, Arguments: b}, err
}

// followUps are the rules' tool calls of turn n (0 to 2); none after.
func followUps(s loop.State, n int) ([]loop.ToolRequest, error) {
	svc := s.Alert.Service
	before, after := splitAt(s)
	var args []contracts.ToolArgs
	var ids []string
	switch n {
	case 0:
		byKind := []string{"name", "kind_string"}
		ids = []string{qBefore, qAfter, qModel, qErrors}
		args = []contracts.ToolArgs{
			{Service: svc, Aggregation: "p95", GroupBy: byKind, To: &before, Limit: 50},
			{Service: svc, Aggregation: "p95", GroupBy: byKind, From: &after, Limit: 50},
			{Service: svc, Aggregation: "p95", GroupBy: []string{"name", "gen_ai.request.model"}, Limit: 20},
			{Service: svc, Aggregation: "count", GroupBy: byKind, Filter: "has_error = true", From: &after, Limit: 50},
		}
	case 1:
		ids = []string{qHostsBefore, qHostsAfter, qPeersBefore, qPeersAfter}
		client := "kind_string = 'Client'"
		args = []contracts.ToolArgs{
			{Service: svc, Aggregation: "count", GroupBy: []string{"server.address"}, Filter: client, To: &before, Limit: 50},
			{Service: svc, Aggregation: "count", GroupBy: []string{"server.address"}, Filter: client, From: &after, Limit: 50},
			{Service: svc, Aggregation: "count", GroupBy: []string{"net.peer.name"}, Filter: client, To: &before, Limit: 50},
			{Service: svc, Aggregation: "count", GroupBy: []string{"net.peer.name"}, Filter: client, From: &after, Limit: 50},
		}
	case 2:
		ids = []string{qChange}
		args = []contracts.ToolArgs{{Service: svc, Aggregation: "count", GroupBy: []string{"deployment.type"}, Filter: "name = '" + markerSpan + "'", Limit: 10}}
		if oi, oa := ordinaryQueries(s, svc, before, after); len(oi) > 0 {
			ids, args = append(ids, oi...), append(args, oa...)
		}
	}
	var out []loop.ToolRequest
	for i, a := range args {
		r, err := aggregate(ids[i], a)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
