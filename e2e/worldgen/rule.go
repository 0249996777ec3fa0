package worldgen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// RuleShare is the share of worlds whose folder holds rule.json: SigNoz's
// answer to GET /api/v2/rules/{id} for the rule the alert names. The rest
// carry only the ruleId label, as a webhook does.
const RuleShare = 0.6

// Rule metrics a world's rule measures (ruleJSON).
const (
	RuleErrorRatio = "error_ratio"
	RuleLatency    = "latency"
	RuleQuality    = "quality_count"
	RuleErrorLogs  = "error_logs"
	// RuleUnreadable are rules the sandbox does not run (a metrics rule, a
	// rule that fires on a fall): the overview must fall back and say so.
	RuleUnreadable = "unreadable"
)

// ruleOf is the rule of the alert ruleID (named alertname) as SigNoz
// returns it and the metric it measures, for a share RuleShare of worlds;
// nil and "" for the others. Its own
// generator (seeded apart from every other draw) picks the metric and its
// parameters wide: an error ratio in any of the formula's spellings, a
// latency quantile of the whole service or its server spans, a count of a
// quality attribute's failing value or of error logs, or a rule the sandbox
// cannot run. The rule never knows the world's class: an SRE writes rules
// before incidents.
func ruleOf(w World, ruleID, alertname string) ([]byte, string) {
	r := ruleRand(w)
	if r.Float64() >= RuleShare {
		return nil, ""
	}
	svc := w.Topo.Affected
	scope := fmt.Sprintf("service.name = '%s'", svc)
	builder := func(name, signal, filter, agg string, disabled bool) map[string]any {
		return map[string]any{"type": "builder_query", "spec": map[string]any{"name": name, "signal": signal, "stepInterval": 60, "disabled": disabled,
			"filter": map[string]any{"expression": filter}, "aggregations": []any{map[string]any{"expression": agg}}, "groupBy": []any{
				map[string]any{"name": "service.name", "fieldContext": "resource", "fieldDataType": "string"}}}}
	}
	var queries []any
	op, selected, unit, alertType := "above", "A", "", "TRACES_BASED_ALERT"
	var target float64
	metric := pickWeighted(r, []string{RuleErrorRatio, RuleLatency, RuleQuality, RuleErrorLogs, RuleUnreadable}, []float64{0.35, 0.25, 0.15, 0.15, 0.1})
	switch metric {
	case RuleErrorRatio:
		errs := scope + " AND has_error = true"
		if r.Float64() < 0.3 {
			errs = scope + " AND status_code = 2"
		}
		expr := pick(r, []string{"A / B", "A / B * 100", "(A / B) * 100", "A * 100 / B"})
		queries = []any{builder("A", "traces", errs, "count()", true), builder("B", "traces", scope, "count()", true),
			map[string]any{"type": "builder_formula", "spec": map[string]any{"name": "F1", "expression": expr}}}
		selected, unit, target = "F1", "percent", float64(1+r.IntN(10))
	case RuleLatency:
		filter := scope
		if r.Float64() < 0.5 {
			filter += " AND kind_string = 'Server'"
		}
		agg := pick(r, []string{"p95(duration_nano)", "p99(duration_nano)", "p90(duration_nano)", "avg(duration_nano)"})
		queries = []any{builder("A", "traces", filter, agg, false)}
		unit, target = "ms", float64(200+50*r.IntN(30))
	case RuleQuality:
		cond := pick(r, []string{"gen_ai.evaluation.score.label = 'fail'", "llm.guardrail.blocked = true", "eval.passed = false",
			"gen_ai.evaluation.score.value < 0.5", "llm.quality.groundedness < 0.5", "eval.relevance_score < 0.5"})
		queries = []any{builder("A", "traces", scope+" AND "+cond, "count()", false)}
		target = float64(5 + r.IntN(40))
	case RuleErrorLogs:
		queries = []any{builder("A", "logs", scope+" AND severity_text IN ('ERROR', 'error', 'Error')", "count()", false)}
		alertType, target = "LOGS_BASED_ALERT", float64(10+r.IntN(100))
	case RuleUnreadable:
		if r.Float64() < 0.5 {
			alertType = "METRIC_BASED_ALERT"
			queries = []any{map[string]any{"type": "builder_query", "spec": map[string]any{"name": "A", "signal": "metrics", "stepInterval": 60,
				"filter": map[string]any{"expression": scope}, "aggregations": []any{map[string]any{"metricName": "signoz_calls_total",
					"timeAggregation": "rate", "spaceAggregation": "sum"}}}}}
		} else {
			queries = []any{builder("A", "traces", scope, "count()", false)}
			op = "below"
		}
		target = float64(1 + r.IntN(50))
	}
	body := map[string]any{"status": "success", "data": map[string]any{
		"id": ruleID, "alert": alertname, "alertType": alertType, "ruleType": "threshold_rule", "state": "firing",
		"version": "v5", "schemaVersion": "v2alpha1", "evalWindow": pick(r, []string{"5m0s", "10m0s", "15m0s"}), "frequency": "1m0s",
		"labels": map[string]string{"severity": "critical"}, "annotations": map[string]string{"summary": alertname},
		"disabled": false, "source": "http://signoz.internal:8080/alerts/edit?ruleId=" + ruleID,
		"condition": map[string]any{
			"compositeQuery":    map[string]any{"queryType": "builder", "panelType": "graph", "unit": unit, "queries": queries},
			"selectedQueryName": selected, "op": op, "target": target, "matchType": pick(r, []string{"at_least_once", "on_average", "all_the_times"}),
		},
	}}
	b, _ := json.MarshalIndent(body, "", "  ")
	return append(b, '\n'), metric
}

// ruleRand is the rule's own generator: no other draw of the world moves.
func ruleRand(w World) *rand.Rand { return rand.New(rand.NewPCG(w.Seed^0x7e1e, uint64(w.Index)+7331)) }

// hasRule reports whether world w's folder holds rule.json (ruleOf's first draw).
func hasRule(w World) bool { return ruleRand(w).Float64() < RuleShare }

// RuleMetric is the metric of world w's rule.json, "" when it has none.
func RuleMetric(w World) string {
	_, m := ruleOf(w, "x", "x")
	return m
}

func pickWeighted(r *rand.Rand, xs []string, ws []float64) string {
	x := r.Float64()
	for i, w := range ws {
		if x < w {
			return xs[i]
		}
		x -= w
	}
	return xs[len(xs)-1]
}
