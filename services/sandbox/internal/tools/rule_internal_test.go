package tools

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/facts/synthetic"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestRuleOnsetEarlierNeverLater: the alert rule's own series is one more
// signal. Departing earlier than the service's errors it moves the onset
// earlier; departing later it leaves the onset where it was. The trap: a
// stale marker 5 minutes after the errors began and 5 before the rule's
// series left its baseline. With the rule allowed to move the onset later
// (mutant sandbox.rule_earliest) the marker would precede the onset and
// read as the cause.
func TestRuleOnsetEarlierNeverLater(t *testing.T) {
	t.Parallel()
	errorsFrom := 2*time.Hour + 40*time.Minute // 11:40, the alert at 12:00
	svc := synth{synthetic.Series{Length: 3 * time.Hour, Rate: 0.5, Sampling: 1, Onset: errorsFrom, Signal: "error_rate"}}
	quiet := synth{synthetic.Series{Length: 3 * time.Hour, Rate: 0.5, Sampling: 1, Onset: 4 * time.Hour, Signal: "error_rate"}}
	rule := func(from time.Duration, sig string) synth {
		return synth{synthetic.Series{Length: 3 * time.Hour, Rate: 0.5, Sampling: 1, Onset: from, Signal: sig}}
	}
	svcOn := facts.FindOnset(svc.minutes(1), synthEnd, DefaultMargins)
	require.NotNil(t, svcOn.At)
	marker := svc.onsetAt().Add(5 * time.Minute)
	tests := []struct {
		name     string
		svc      []Minute
		rule     synth
		wantRule bool // the rule's onset is the onset
		wantAt   time.Time
	}{
		{name: "rule departs later: onset stays", svc: svc.minutes(1), rule: rule(errorsFrom+10*time.Minute, "p95"), wantAt: *svcOn.At},
		{name: "rule departs later in its error ratio: onset stays", svc: svc.minutes(1), rule: rule(errorsFrom+10*time.Minute, "error_rate"), wantAt: *svcOn.At},
		{name: "rule departs earlier: onset moves earlier", svc: svc.minutes(1), rule: rule(errorsFrom-15*time.Minute, "p95"), wantRule: true},
		{name: "no other signal: the rule places it", svc: quiet.minutes(2), rule: rule(errorsFrom, "p95"), wantRule: true},
		{name: "rule shows nothing: onset stays", svc: svc.minutes(1), rule: rule(4*time.Hour, "p95"), wantAt: *svcOn.At},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := facts.FindOnset(tt.svc, synthEnd, DefaultMargins)
			ro := ruleOnset{read: &RuleRead{Rule: Rule{ID: "r1", Name: "errors"}}, signal: "rule 'errors': F1", ok: true, alertAt: synthEnd,
				on: facts.FindOnset(tt.rule.minutes(3), synthEnd, DefaultMargins)}
			got := earliestWithRule(base, ro)
			require.NotNil(t, got.At)
			if base.At != nil {
				require.False(t, got.At.After(*base.At), "never later: %s after %s", got.At, base.At)
			}
			if tt.wantRule {
				require.NotNil(t, ro.on.At)
				require.Equal(t, *ro.on.At, *got.At)
				require.Equal(t, "rule", got.Signal)
				require.Equal(t, "rule 'errors': F1", got.Rule)
				require.Contains(t, got.Reason, "rule 'errors'")
				return
			}
			require.Equal(t, tt.wantAt, *got.At)
			require.Empty(t, got.Rule)
			require.True(t, marker.After(*got.At), "the stale marker %s stays after the onset %s", marker, got.At)
		})
	}
}

// TestRuleOnsetLeavesAnUnknownOnsetUnknown: a baseline too short for the
// service's own onset is not replaced by the rule's (fail closed), and a
// rule departure after the alert is no onset.
func TestRuleOnsetLeavesAnUnknownOnsetUnknown(t *testing.T) {
	t.Parallel()
	short := Onset{Short: true, Reason: "baseline 6 min"}
	at := synthEnd.Add(-30 * time.Minute)
	ro := ruleOnset{read: &RuleRead{}, ok: true, alertAt: synthEnd, on: Onset{At: &at}}
	require.Equal(t, short, earliestWithRule(short, ro))
	late := synthEnd.Add(time.Minute)
	svcAt := synthEnd.Add(-10 * time.Minute)
	on := Onset{At: &svcAt}
	require.Equal(t, on, earliestWithRule(Onset{At: &svcAt}, ruleOnset{read: &RuleRead{}, ok: true, alertAt: synthEnd, on: Onset{At: &late}}))
	require.Equal(t, on, earliestWithRule(Onset{At: &svcAt}, ruleOnset{read: &RuleRead{}, ok: false, alertAt: synthEnd, on: Onset{At: &at}}))
}

func ruleJSON(queries, condition string) []byte {
	return []byte(`{"status":"success","data":{"id":"019a","alert":"checkout errors","alertType":"TRACES_BASED_ALERT","ruleType":"threshold_rule","state":"firing",
		"condition":{"compositeQuery":{"queryType":"builder","panelType":"graph","queries":[` + queries + `]}` + condition + `}}}`)
}

const (
	qErrors = `{"type":"builder_query","spec":{"name":"A","signal":"traces","disabled":true,"filter":{"expression":"service.name = 'checkout' AND has_error = true"},"aggregations":[{"expression":"count()"}]}}`
	qAll    = `{"type":"builder_query","spec":{"name":"B","signal":"traces","disabled":true,"filter":{"expression":"service.name = 'checkout'"},"aggregations":[{"expression":"count()"}]}}`
)

// TestParseRule: the rules the overview runs (an error ratio, a count, a
// duration aggregation) and, in words, why any other is not run.
func TestParseRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     []byte
		kind     string
		expr     string
		wantErr  string
		wantRuns int
	}{
		{name: "error ratio in percent", body: ruleJSON(qErrors+","+qAll+`,{"type":"builder_formula","spec":{"name":"F1","expression":"A / B * 100"}}`, `,"op":"above","target":5,"selectedQueryName":"F1"`),
			kind: ruleRatio, expr: `F1 = A / B * 100 (A: count() where "service.name = 'checkout' AND has_error = true"; B: count() where "service.name = 'checkout'")`, wantRuns: 2},
		{name: "ratio formula by default", body: ruleJSON(qErrors+","+qAll+`,{"type":"builder_formula","spec":{"name":"F1","expression":"(A/B)*100"}}`, ``), kind: ruleRatio, wantRuns: 2},
		{name: "count of a quality value", body: ruleJSON(`{"type":"builder_query","spec":{"name":"A","signal":"traces","filter":{"expression":"llm.answer.verdict = 'refused'"},"aggregations":[{"expression":"count()"}]}}`, `,"op":"above","target":20`),
			kind: ruleCount, expr: `A = count() where "llm.answer.verdict = 'refused'"`, wantRuns: 1},
		{name: "p99 latency, threshold op", body: ruleJSON(`{"type":"builder_query","spec":{"name":"A","signal":"traces","filter":{"expression":"name = 'POST /pay'"},"aggregations":[{"expression":"p99(duration_nano)"}]}}`, `,"thresholds":{"kind":"basic","spec":[{"name":"critical","target":800,"matchType":"at_least_once","op":"above"}]}`),
			kind: ruleLatency, wantRuns: 1},
		{name: "error logs", body: ruleJSON(`{"type":"builder_query","spec":{"name":"A","signal":"logs","filter":{"expression":"severity_text = 'ERROR'"},"aggregations":[{"expression":"count()"}]}}`, ``), kind: ruleCount, wantRuns: 1},
		{name: "a fall is not measured", body: ruleJSON(qAll, `,"op":"below"`), wantErr: "fires when its value is below its target; only a rise is measured"},
		{name: "metrics are not read", body: ruleJSON(`{"type":"builder_query","spec":{"name":"A","signal":"metrics","aggregations":[{"expression":"count()"}]}}`, ``), wantErr: `reads "metrics"; the sandbox reads traces and logs`},
		{name: "promql", body: []byte(`{"status":"success","data":{"id":"1","alert":"x","condition":{"compositeQuery":{"queryType":"promql","queries":[]}}}}`), wantErr: "the rule's query is promql, not a builder query"},
		{name: "no queries (a rule the webhook only names)", body: ruleJSON(``, ``), wantErr: "the rule has no builder query"},
		{name: "formula that is no ratio", body: ruleJSON(qErrors+","+qAll+`,{"type":"builder_formula","spec":{"name":"F1","expression":"A - B"}}`, ``), wantErr: `the rule's formula F1 = "A - B" is not a ratio of two counts`},
		{name: "ratio of a latency", body: ruleJSON(qErrors+`,{"type":"builder_query","spec":{"name":"B","signal":"traces","aggregations":[{"expression":"p95(duration_nano)"}]}},{"type":"builder_formula","spec":{"name":"F1","expression":"A / B"}}`, ``), wantErr: "does not divide two count() queries"},
		{name: "an aggregation it cannot map", body: ruleJSON(`{"type":"builder_query","spec":{"name":"A","signal":"traces","aggregations":[{"expression":"avg(llm.score)"}]}}`, ``), wantErr: `aggregates "avg(llm.score)"`},
		{name: "a filter that would escape the service scope", body: ruleJSON(`{"type":"builder_query","spec":{"name":"A","signal":"traces","filter":{"expression":"has_error = true) OR (service.name = 'agentk-gate'"},"aggregations":[{"expression":"count()"}]}}`, ``),
			wantErr: "parentheses or quotes do not balance"},
		{name: "parentheses inside quotes are values", body: ruleJSON(`{"type":"builder_query","spec":{"name":"A","signal":"logs","filter":{"expression":"(body CONTAINS 'timeout (2s)') AND severity_text = 'ERROR'"},"aggregations":[{"expression":"count()"}]}}`, ``),
			kind: ruleCount, wantRuns: 1},
		{name: "an error envelope", body: []byte(`{"status":"error","error":{"code":"not_found","message":"rule not found"}}`), wantErr: "SigNoz's answer is not a rule"},
		{name: "not json", body: []byte(`<html>`), wantErr: "SigNoz's answer is not a rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := ParseRule(tt.body)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrRule)
				require.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.kind, r.kind)
			if tt.expr != "" {
				require.Equal(t, tt.expr, r.Expr)
			}
			c := Call{Service: "checkout", StartsAt: synthEnd, Incident: IncidentWindow(synthEnd, synthEnd)}
			qs := RuleQueries(c, r)
			require.Len(t, qs, tt.wantRuns)
			for _, q := range qs {
				require.True(t, q.Optional, "SigNoz refusing the rule's query never fails the overview")
				spec := q.Request.CompositeQuery.Queries[0].Spec
				require.Contains(t, spec.Filter.Expression, "service.name = 'checkout'")
				require.Equal(t, signoz.RequestTimeSeries, q.Request.RequestType)
				require.Equal(t, 60, spec.StepInterval)
				require.Equal(t, OnsetWindow(c).From.UnixMilli(), q.Request.Start)
			}
		})
	}
}

// TestRuleUnreadSaysWhy: each reason a rule is not used reads as plain words.
func TestRuleUnreadSaysWhy(t *testing.T) {
	t.Parallel()
	_, parseErr := ParseRule(ruleJSON(qAll, `,"op":"below"`))
	tests := []struct {
		name, id string
		err      error
		want     string
	}{
		{"no rule id", "", nil, "the alert names no rule (no ruleId label)"},
		{"404", "24", &signoz.APIError{HTTPStatus: 404, Message: "rule with id 24 not found"}, "SigNoz has no rule 24 (HTTP 404)"},
		{"not run", "24", parseErr, "rule 24 was read but is not run: the rule fires when its value is below its target; only a rise is measured"},
		{"unavailable", "24", signoz.ErrUnavailable, "rule 24 could not be read: signoz: unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, RuleUnread(tt.id, tt.err))
		})
	}
}
