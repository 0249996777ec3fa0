package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/platform/links"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

const ruleCorpus = "../../../../e2e/incidents-rule"

// overviewWithRule runs service_overview as the executor does when it reads
// the alert's rule: the rule from the fake's GET /api/v2/rules/{id}, its
// queries, then the overview's plan.
func overviewWithRule(t *testing.T, h harness, svc, ruleID string) tools.Output {
	t.Helper()
	c, resps := overviewAnswers(t, h, svc, ruleID)
	out, err := tools.Build(c, resps, h.lim, compact.DefaultLimits)
	require.NoError(t, err)
	return out
}

// overviewAnswers is overviewWithRule's call and the fake SigNoz's answers
// to every stage of its plan, before Build reads them.
func overviewAnswers(t *testing.T, h harness, svc, ruleID string) (tools.Call, []signoz.Response) {
	t.Helper()
	c, err := tools.Validate(contracts.ToolServiceOverview, json.RawMessage(`{"service":"`+svc+`"}`), h.startsAt, h.now, h.lim)
	require.NoError(t, err)
	c.Rule = &tools.RuleRead{Unread: tools.RuleUnread("", nil)}
	if ruleID != "" {
		res, err := h.client.Rule(context.Background(), ruleID)
		switch {
		case err != nil:
			c.Rule = &tools.RuleRead{Unread: tools.RuleUnread(ruleID, err)}
		default:
			rule, err := tools.ParseRule(res.Body)
			if err != nil {
				c.Rule = &tools.RuleRead{Rule: rule, Unread: tools.RuleUnread(ruleID, err)}
				break
			}
			rr := &tools.RuleRead{Rule: rule}
			for _, q := range tools.RuleQueries(c, rule) {
				res, err := h.client.QueryRange(context.Background(), q.Request)
				if err != nil && errors.Is(err, signoz.ErrAPI) {
					res, err = signoz.Result{Response: signoz.Response{Refused: err.Error()}}, nil
				}
				require.NoError(t, err)
				rr.Resps = append(rr.Resps, res.Response)
			}
			c.Rule = rr
		}
	}
	p := tools.PlanCall(c, links.DefaultBaseURL, h.lim)
	var resps []signoz.Response
	for queries := p.Queries; len(queries) > 0; {
		for _, q := range queries {
			res, err := h.client.QueryRange(context.Background(), q.Request)
			if err != nil && q.Optional && errors.Is(err, signoz.ErrAPI) {
				res, err = signoz.Result{Response: signoz.Response{Refused: err.Error()}}, nil
			}
			require.NoError(t, err, "query %s", q.Name)
			resps = append(resps, res.Response)
		}
		queries, err = p.Then(resps)
		require.NoError(t, err)
	}
	return c, resps
}

// editedOverview runs service_overview (overviewWithRule, no rule) on the
// incident folder dir under e2e/, from its alert's startsAt to its recorded
// now, after edit changed its spans.
func editedOverview(t *testing.T, dir string, edit func([]incident.Span) []incident.Span) tools.Output {
	t.Helper()
	inc, err := incident.Load(filepath.Join("../../../../e2e", dir))
	require.NoError(t, err)
	inc.Spans = edit(inc.Spans)
	h := newHarness(t, inc, alertStartsAt(t, inc))
	h.now = inc.Meta.Now
	return overviewWithRule(t, h, inc.Meta.Service, "")
}

func ruleIncident(t *testing.T, id string) (harness, *incident.Incident, string) {
	t.Helper()
	inc, err := incident.Load(filepath.Join(ruleCorpus, id))
	require.NoError(t, err)
	var a struct {
		Alerts []struct {
			StartsAt time.Time         `json:"startsAt"`
			Labels   map[string]string `json:"labels"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &a))
	h := newHarness(t, inc, a.Alerts[0].StartsAt)
	h.now = inc.Meta.Now
	return h, inc, a.Alerts[0].Labels["ruleId"]
}

func markerAt(t *testing.T, inc *incident.Incident) time.Time {
	t.Helper()
	for _, s := range inc.Spans {
		if s.Name == "deployment.marker" && s.Service() == inc.Meta.Service {
			return s.Timestamp
		}
	}
	t.Fatalf("%s: no marker", inc.Meta.ID)
	return time.Time{}
}

// TestAlertRuleSignalOnHandwrittenIncidents: on the hand-written incidents
// of e2e/incidents-rule the rule's own series is read through the fake
// SigNoz (rule.json) and shows the regression first; the onset with it is
// never later than without it, and in the trap (a stale flag release
// between the rule's onset and the errors') it is what puts the marker after
// the onset.
func TestAlertRuleSignalOnHandwrittenIncidents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id string
		// markerBeforeOnset is what a correct onset says of the marker.
		markerBeforeOnset bool
		// ruleFirst: the rule's series places the onset.
		ruleFirst bool
	}{
		{id: "rule-search-p99-stale-flag-kb", markerBeforeOnset: false, ruleFirst: true},
		{id: "rule-error-logs-release-ledger", markerBeforeOnset: true, ruleFirst: true},
		{id: "rule-refusals-count-prompt-answer-bot", markerBeforeOnset: true},
		{id: "rule-p95-lags-errors-stale-release-pay", markerBeforeOnset: false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			h, inc, ruleID := ruleIncident(t, tt.id)
			with := overviewWithRule(t, h, inc.Meta.Service, ruleID)
			without := overviewWithRule(t, h, inc.Meta.Service, "")
			require.NotNil(t, with.Facts.Onset, with.Compact)
			require.NotNil(t, with.Facts.AlertRule, with.Compact)
			require.Empty(t, with.Facts.AlertRule.Unread, with.Compact)
			require.NotNil(t, with.Facts.AlertRule.Onset, with.Compact)
			t.Logf("onset with the rule %s (rule's %s), without %v; marker %s", with.Facts.Onset, with.Facts.AlertRule.Onset, without.Facts.Onset, markerAt(t, inc))
			if without.Facts.Onset != nil {
				require.False(t, with.Facts.Onset.After(*without.Facts.Onset), "a new signal never moves the onset later")
			}
			require.Equal(t, tt.ruleFirst, with.Facts.AlertRule.PlacedOnset, with.Compact)
			if tt.ruleFirst {
				require.NotEmpty(t, with.Facts.OnsetRule)
				require.Contains(t, with.Compact, "the alert's own rule placed the onset")
			}
			require.Equal(t, tt.markerBeforeOnset, markerAt(t, inc).Before(*with.Facts.Onset), with.Compact)
			require.Equal(t, "the alert names no rule (no ruleId label): the onset is the other signals' (the service's series, its operations, its attributes)", without.Facts.AlertRule.Unread)
		})
	}
}
