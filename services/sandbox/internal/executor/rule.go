package executor

import (
	"context"
	"log/slog"
	"net/url"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"
)

// RuleReader reads one alert rule by id (signoz.Client: GET
// /api/v2/rules/{id}; mcpbackend.Client: signoz_get_alert). Both need only
// SigNoz's VIEWER role: the read-only key.
type RuleReader interface {
	Rule(ctx context.Context, id string) (signoz.RuleResult, error)
}

// readRule reads the rule the alert names (its ruleId label, else the
// ruleId of its generatorURL) and runs the
// rule's own queries (tools.RuleQueries) over the onset window, for a
// service_overview to judge as one more signal. It never fails the call: a
// rule that cannot be read or run is a RuleRead saying why in plain words,
// and the overview's onset is then the other signals'. It returns the
// bodies read (the rule's, then its series', hashed into the evidence after
// the overview's own) and the notes about them.
func (e *Executor) readRule(ctx context.Context, c tools.Call, alert contracts.AlertV1, log *slog.Logger) (*tools.RuleRead, [][]byte, []contracts.SourceNote) {
	id := alert.Labels["ruleId"]
	if id == "" {
		id = ruleIDOf(alert.Links.Generator)
	}
	if id == "" {
		return &tools.RuleRead{Unread: tools.RuleUnread("", nil)}, nil, nil
	}
	res, err := e.Rules.Rule(ctx, id)
	if err != nil {
		log.InfoContext(ctx, "alert rule not read", "rule_id", id, "err", err)
		return &tools.RuleRead{Rule: tools.Rule{ID: id}, Unread: tools.RuleUnread(id, err)}, nil, nil
	}
	bodies := [][]byte{res.Body}
	rule, err := tools.ParseRule(res.Body)
	if rule.ID == "" {
		rule.ID = id
	}
	if err != nil {
		return &tools.RuleRead{Rule: rule, Unread: tools.RuleUnread(id, err)}, bodies, nil
	}
	queries := tools.RuleQueries(c, rule)
	results, failed, err := e.runStage(ctx, queries)
	if err != nil {
		log.InfoContext(ctx, "alert rule's query failed", "rule_id", id, "query", queries[failed].Name, "err", err)
		return &tools.RuleRead{Rule: rule, Unread: tools.RuleUnread(id, err)}, bodies, nil
	}
	rr := &tools.RuleRead{Rule: rule}
	var notes []contracts.SourceNote
	for i, r := range results {
		bodies = append(bodies, r.Body)
		rr.Resps = append(rr.Resps, r.Response)
		notes = append(notes, sourceNotes(queries[i], r)...)
	}
	return rr, bodies, notes
}

// ruleIDOf is the ruleId query parameter of SigNoz's generatorURL
// (…/alerts/edit?ruleId=24), "" when there is none.
func ruleIDOf(generator string) string {
	u, err := url.Parse(generator)
	if err != nil {
		return ""
	}
	return u.Query().Get("ruleId")
}
