package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// The alert's own signal (issue 35): the alert names its rule (the ruleId
// label), and SigNoz serves the rule at GET /api/v2/rules/{id} with its
// builder queries. The overview runs the rule's own query over the onset
// window and finds where that series left its baseline with FindOnset: the
// onset of the very thing that breached. It is one more signal, so it may
// move the onset earlier, never later (DESIGN rule 16: a later onset is what
// lets a stale marker pass). A rule that cannot be read or run (no ruleId,
// a 404, a query the sandbox cannot map to a series) leaves the onset to
// the other signals, and the evidence says so in plain words.

// ErrRule is wrapped by every reason a rule cannot be run.
var ErrRule = errors.New("tools: alert rule not usable")

// Rule kinds: how the rule's value maps to a per-minute series FindOnset
// judges.
const (
	// ruleRatio is a formula num / den of two count() queries (an error
	// ratio): errors and requests.
	ruleRatio = "ratio"
	// ruleCount is one count() query (spans or logs matching a condition):
	// the count over the service's own traffic that minute.
	ruleCount = "count"
	// ruleLatency is one query of a duration aggregation (p95, p99, avg, …
	// of duration_nano): its value as the minute's p95.
	ruleLatency = "latency"
)

// Rule is the alert's rule as far as the overview runs it.
type Rule struct {
	ID, Name string
	// Expr says what the rule measures, in the rule's own terms.
	Expr string
	kind string
	// num is the query counted (ratio, count) or measured (latency); den
	// the ratio's denominator.
	num, den ruleQuery
}

type ruleQuery struct {
	name, signal, filter, agg string
}

// RuleRead is what the adapter read of the alert's rule before the
// overview was planned: the rule and the answers to RuleQueries, or why
// none (Unread, plain words). A nil *RuleRead on a Call means no reading was
// attempted (a caller without a rule reader).
type RuleRead struct {
	Rule   Rule
	Resps  []signoz.Response
	Unread string
}

// ruleBody is the part of SigNoz's RuletypesRule the overview reads.
type ruleBody struct {
	Status string `json:"status"`
	Data   struct {
		ID        string `json:"id"`
		Alert     string `json:"alert"`
		Condition struct {
			CompositeQuery struct {
				QueryType string `json:"queryType"`
				Queries   []struct {
					Type string `json:"type"`
					Spec struct {
						Name         string                       `json:"name"`
						Signal       string                       `json:"signal"`
						Expression   string                       `json:"expression"`
						Disabled     bool                         `json:"disabled"`
						Filter       *struct{ Expression string } `json:"filter"`
						Aggregations []struct {
							Expression string `json:"expression"`
						} `json:"aggregations"`
					} `json:"spec"`
				} `json:"queries"`
			} `json:"compositeQuery"`
			Op                string `json:"op"`
			SelectedQueryName string `json:"selectedQueryName"`
			Thresholds        *struct {
				Spec []struct {
					Op string `json:"op"`
				} `json:"spec"`
			} `json:"thresholds"`
		} `json:"condition"`
	} `json:"data"`
}

// ratioExpr matches the formulas of an error ratio: A / B, A / B * 100,
// (A / B) * 100, A * 100 / B, 100 * A / B (spaces removed).
var ratioExpr = regexp.MustCompile(`^(?:100\*)?\(?([A-Z][A-Z0-9]*)(?:\*100)?/([A-Z][A-Z0-9]*)\)?(?:\*100)?$`)

// durationAgg matches a duration aggregation the overview reads as latency.
var durationAgg = regexp.MustCompile(`^(p50|p75|p90|p95|p99|avg|max)\(duration_nano\)$`)

// rising are the compare operators of a rule that fires when its value
// rises (SigNoz's names and the older numeric codes 1 and 5).
var rising = []string{"", "above", "above_or_equal", "1", "5"}

// ParseRule reads SigNoz's answer to GET /api/v2/rules/{id}: the selected
// query of the rule's compositeQuery (condition.selectedQueryName, else the
// last formula, else the first builder query) must be an error ratio of two
// count() queries, one count() query, or one duration aggregation, over
// traces or logs, of a rule that fires on a rise. Every other rule is an
// error wrapping ErrRule that says why in plain words.
func ParseRule(body []byte) (Rule, error) {
	var b ruleBody
	if err := json.Unmarshal(body, &b); err != nil {
		return Rule{}, fmt.Errorf("%w: SigNoz's answer is not a rule: %v", ErrRule, err)
	}
	if b.Status != "success" || b.Data.ID == "" {
		return Rule{}, fmt.Errorf("%w: SigNoz's answer is not a rule (status %q, no id)", ErrRule, b.Status)
	}
	d := b.Data
	r := Rule{ID: d.ID, Name: d.Alert}
	if qt := d.Condition.CompositeQuery.QueryType; qt != "" && qt != "builder" {
		return r, fmt.Errorf("%w: the rule's query is %s, not a builder query", ErrRule, qt)
	}
	op := d.Condition.Op
	if op == "" && d.Condition.Thresholds != nil && len(d.Condition.Thresholds.Spec) > 0 {
		op = d.Condition.Thresholds.Spec[0].Op
	}
	if !slices.Contains(rising, op) {
		return r, fmt.Errorf("%w: the rule fires when its value is %s its target; only a rise is measured", ErrRule, op)
	}
	qs := collectRuleQueries(b)
	sel := d.Condition.SelectedQueryName
	if sel == "" && len(qs.formulas) > 0 {
		sel = qs.formulas[len(qs.formulas)-1]
	}
	if sel == "" {
		sel = qs.first
	}
	if sel == "" {
		return r, fmt.Errorf("%w: the rule has no builder query", ErrRule)
	}
	if expr, ok := qs.formulaOf[sel]; ok {
		return ratioRule(r, qs, sel, expr)
	}
	return singleRule(r, qs, sel)
}

// ruleQueries are a rule's builder queries by name, its formulas in order
// with their expressions, and its first enabled builder query.
type ruleQueries struct {
	builders  map[string]ruleQuery
	formulas  []string
	formulaOf map[string]string
	first     string
}

func collectRuleQueries(b ruleBody) ruleQueries {
	qs := ruleQueries{builders: map[string]ruleQuery{}, formulaOf: map[string]string{}}
	for _, q := range b.Data.Condition.CompositeQuery.Queries {
		switch q.Type {
		case "builder_query":
			f, agg := "", ""
			if q.Spec.Filter != nil {
				f = strings.TrimSpace(q.Spec.Filter.Expression)
			}
			if len(q.Spec.Aggregations) == 1 {
				agg = strings.TrimSpace(q.Spec.Aggregations[0].Expression)
			}
			qs.builders[q.Spec.Name] = ruleQuery{name: q.Spec.Name, signal: q.Spec.Signal, filter: f, agg: agg}
			if qs.first == "" && !q.Spec.Disabled {
				qs.first = q.Spec.Name
			}
		case "builder_formula":
			qs.formulas = append(qs.formulas, q.Spec.Name)
			qs.formulaOf[q.Spec.Name] = q.Spec.Expression
		}
	}
	return qs
}

// ratioRule is a rule whose selected formula sel = expr divides two
// count() queries.
func ratioRule(r Rule, qs ruleQueries, sel, expr string) (Rule, error) {
	m := ratioExpr.FindStringSubmatch(strings.ReplaceAll(expr, " ", ""))
	if m == nil {
		return r, fmt.Errorf("%w: the rule's formula %s = %q is not a ratio of two counts", ErrRule, sel, expr)
	}
	num, okN := qs.builders[m[1]]
	den, okD := qs.builders[m[2]]
	if !okN || !okD || num.agg != "count()" || den.agg != "count()" {
		return r, fmt.Errorf("%w: the rule's formula %s = %q does not divide two count() queries", ErrRule, sel, expr)
	}
	if err := readable(num); err != nil {
		return r, err
	}
	if err := readable(den); err != nil {
		return r, err
	}
	r.kind, r.num, r.den = ruleRatio, num, den
	r.Expr = fmt.Sprintf("%s = %s (%s: count() where %s; %s: count() where %s)", sel, expr, num.name, orAll(num.filter), den.name, orAll(den.filter))
	return r, nil
}

// singleRule is a rule whose selected query sel is one builder query: a
// count or a duration aggregation.
func singleRule(r Rule, qs ruleQueries, sel string) (Rule, error) {
	q, ok := qs.builders[sel]
	if !ok {
		return r, fmt.Errorf("%w: the rule's selected query %q is neither a builder query nor a formula", ErrRule, sel)
	}
	if err := readable(q); err != nil {
		return r, err
	}
	switch {
	case q.agg == "count()":
		r.kind = ruleCount
	case durationAgg.MatchString(q.agg) && q.signal == signoz.SignalTraces:
		r.kind = ruleLatency
	default:
		return r, fmt.Errorf("%w: the rule's query %s aggregates %q: only count(), a ratio of counts or a duration aggregation is measured", ErrRule, sel, q.agg)
	}
	r.num = q
	r.Expr = fmt.Sprintf("%s = %s where %s", sel, q.agg, orAll(q.filter))
	return r, nil
}

// readable checks that the overview can run q: traces or logs, with a
// filter whose parentheses balance outside quoted strings, so that the
// service scope ANDed to it (RuleQueries) holds for the whole of it.
func readable(q ruleQuery) error {
	if q.signal != signoz.SignalTraces && q.signal != signoz.SignalLogs {
		return fmt.Errorf("%w: the rule's query %s reads %q; the sandbox reads traces and logs", ErrRule, q.name, q.signal)
	}
	if !balanced(q.filter) {
		return fmt.Errorf("%w: the rule's query %s has a filter whose parentheses or quotes do not balance", ErrRule, q.name)
	}
	return nil
}

// balanced reports whether the parentheses of a filter expression balance
// outside its quoted strings ('…' or "…", backslash escapes) and every
// quote is closed.
func balanced(expr string) bool {
	depth := 0
	var quote rune
	escaped := false
	for _, c := range expr {
		switch {
		case escaped:
			escaped = false
		case quote != 0 && c == '\\':
			escaped = true
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && quote == 0
}

// orAll is the rule's filter as the compact text shows it: quoted like
// every string the sandbox did not write (a rule's filter may hold any
// value), or "(no filter)".
func orAll(filter string) string {
	if filter == "" {
		return "(no filter)"
	}
	return compact.Quote(filter)
}

// RuleQueries are the rule's own builder queries as per-minute series over
// the onset window (OnsetWindow), scoped to the call's service (the rule's
// filter in parentheses, AND service.name), without the rule's grouping;
// deployment markers stay out of trace series as they do from the
// service's own (notMarker). A latency query also counts its spans.
func RuleQueries(c Call, r Rule) []Query {
	ow := OnsetWindow(c)
	from, to := ow.From.UnixMilli(), ow.To.UnixMilli()
	series := func(name string, q ruleQuery, aggs []signoz.Aggregation) Query {
		f := []string{serviceFilter(c.Service)}
		if q.signal == signoz.SignalTraces {
			f = append(f, notMarker)
		}
		if q.filter != "" {
			f = append(f, "("+q.filter+")")
		}
		return Query{Name: name, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, from, to, signoz.BuilderQuery{Name: "A", Signal: q.signal, StepInterval: 60,
			Filter: signoz.Filter{Expression: and(f...)}, Aggregations: aggs, Limit: 1})}
	}
	count := []signoz.Aggregation{{Expression: "count()"}}
	switch r.kind {
	case ruleRatio:
		return []Query{series("rule_numerator", r.num, count), series("rule_denominator", r.den, count)}
	case ruleCount:
		return []Query{series("rule_count", r.num, count)}
	case ruleLatency:
		return []Query{series("rule_latency", r.num, []signoz.Aggregation{{Expression: "count()"}, {Expression: r.num.agg}})}
	}
	return nil
}

// ruleOnset is what the rule's own series shows: its onset, or why it has
// none (reason), with the rule's signal in words. ok is false when no rule
// was read or it could not be run.
type ruleOnset struct {
	read   *RuleRead
	on     Onset
	signal string
	ok     bool
	why    string
	// alertAt is the alert's startsAt: a departure that begins after it
	// did not fire the alert.
	alertAt time.Time
}

// ruleOnsetOf runs FindOnset over the rule's series (c.Rule). svc is the
// service's own per-minute series: a count rule is judged as a share of it.
func ruleOnsetOf(c Call, svc []Minute) ruleOnset {
	rr := c.Rule
	if rr == nil {
		return ruleOnset{}
	}
	out := ruleOnset{read: rr, alertAt: c.StartsAt}
	if rr.Unread != "" {
		out.why = rr.Unread
		return out
	}
	out.signal = fmt.Sprintf("rule %s: %s", compact.Quote(rr.Rule.Name), rr.Rule.Expr)
	ms, err := ruleMinutes(rr.Rule, rr.Resps, svc)
	if err != nil {
		out.why = err.Error()
		return out
	}
	out.on, out.ok = facts.FindOnset(ms, c.StartsAt, DefaultMargins), true
	return out
}

// ruleMinutes maps the rule's answers to a per-minute series.
func ruleMinutes(r Rule, resps []signoz.Response, svc []Minute) ([]Minute, error) {
	if len(resps) != len(RuleQueries(Call{}, r)) {
		return nil, fmt.Errorf("%w: %d answers to the rule's %d queries", ErrRule, len(resps), len(RuleQueries(Call{}, r)))
	}
	for _, resp := range resps {
		if resp.Refused != "" {
			return nil, fmt.Errorf("%w: SigNoz refused the rule's query (%s)", ErrRule, resp.Refused)
		}
	}
	all := func(signoz.Series) string { return "all" }
	switch r.kind {
	case ruleRatio:
		by, err := perMinuteGrouped(resps[1], resps[0], all)
		if err != nil {
			return nil, err
		}
		return by["all"], nil
	case ruleCount:
		t := minutesAt{}
		for _, x := range svc {
			t.at(x.At.UnixMilli()).Requests = x.Requests
		}
		err := samples(resps[0], all, func(_ string, agg int, ts int64, v float64) {
			if agg == 0 {
				t.at(ts).Errors += v
			}
		})
		return t.list(), err
	case ruleLatency:
		t := minutesAt{}
		err := samples(resps[0], all, func(_ string, agg int, ts int64, v float64) {
			switch agg {
			case 0:
				t.at(ts).Requests += v
			case 1:
				t.at(ts).P95Ms = v / 1e6
			}
		})
		return t.list(), err
	}
	return nil, fmt.Errorf("%w: rule of no known kind", ErrRule)
}

// minutesAt collects one series' minutes by Unix millisecond.
type minutesAt map[int64]*Minute

func (t minutesAt) at(ts int64) *Minute {
	if x, ok := t[ts]; ok {
		return x
	}
	x := &Minute{At: time.UnixMilli(ts).UTC(), P95Ms: math.NaN()}
	t[ts] = x
	return x
}

func (t minutesAt) list() []Minute {
	out := make([]Minute, 0, len(t))
	for _, x := range t {
		out = append(out, *x)
	}
	slices.SortFunc(out, func(a, b Minute) int { return a.At.Compare(b.At) })
	return out
}

// earliestWithRule is on, or the rule's onset where that is earlier (or on
// found none): a new signal may move the onset earlier, never later. An
// onset unknown for a short baseline stays unknown. The rule's onset keeps
// on's baseline and thresholds (the other facts measure the service
// against them), and it is not refined inside its bucket (Signal "rule":
// the service's spans do not show the rule's condition).
func earliestWithRule(on Onset, ro ruleOnset) Onset {
	if !ro.ok || ro.on.At == nil || on.Short || ro.on.At.After(ro.alertAt) || mutant.Off(mutant.SandboxRuleOnset) {
		return on
	}
	if on.At != nil && !ro.on.At.Before(*on.At) && !mutant.Off(mutant.SandboxRuleEarliest) {
		return on
	}
	out := on
	if out.BaselineMinutes == 0 {
		out = ro.on
	}
	at := *ro.on.At
	out.At, out.Signal, out.Rule = &at, "rule", ro.signal
	out.Pooled, out.Quality, out.Operation, out.OpFilter, out.Refined, out.Signatures = false, false, "", "", "", ""
	was := "the other signals found none"
	if on.At != nil {
		was = "the other signals' onset " + on.At.Format(time.RFC3339)
	}
	out.Reason = fmt.Sprintf("%s: %s (%s)", ro.signal, ro.on.Reason, was)
	return out
}

// ruleFacts are the facts of the rule's signal.
func ruleFacts(ro ruleOnset, on Onset) *contracts.AlertRuleSignal {
	if ro.read == nil {
		return nil
	}
	f := &contracts.AlertRuleSignal{ID: ro.read.Rule.ID, Name: ro.read.Rule.Name, Signal: ro.signal}
	switch {
	case !ro.ok:
		f.Unread = ro.why + ": the onset is the other signals' (the service's series, its operations, its attributes)"
	case ro.on.At == nil:
		f.Unread = "the rule's series shows no onset (" + ro.on.Reason + "): the onset is the other signals'"
	default:
		at := *ro.on.At
		f.Onset = &at
		f.PlacedOnset = on.Rule != "" && on.At != nil && on.At.Equal(at)
	}
	return f
}

// ruleLines sets the rule's facts on f (facts.onset_rule, facts.alert_rule)
// and returns the line that says what the rule's series showed, if any.
func ruleLines(f *contracts.Facts, c Call, svc []Minute, on Onset) []string {
	f.OnsetRule, f.AlertRule = on.Rule, ruleFacts(ruleOnsetOf(c, svc), on)
	if l := ruleLine(f.AlertRule); l != "" {
		return []string{l}
	}
	return nil
}

// ruleLine says what the rule's own series showed.
func ruleLine(f *contracts.AlertRuleSignal) string {
	switch {
	case f == nil:
		return ""
	case f.Unread != "":
		name := f.ID
		if f.Name != "" {
			name = compact.Quote(f.Name)
		}
		return "alert rule " + name + " not used: " + f.Unread
	case f.PlacedOnset:
		return fmt.Sprintf("the alert's own rule placed the onset, %s (earlier than every other signal): %s", f.Onset.Format(time.RFC3339), f.Signal)
	}
	return fmt.Sprintf("the alert's own rule left its baseline at %s, not earlier than the onset: %s", f.Onset.Format(time.RFC3339), f.Signal)
}

// RuleUnread is the plain-words reason of a rule not read, for the
// adapter: the alert names none, or SigNoz did not give it.
func RuleUnread(ruleID string, err error) string {
	if ruleID == "" {
		return "the alert names no rule (no ruleId label)"
	}
	var api *signoz.APIError
	if errors.As(err, &api) && api.HTTPStatus == 404 {
		return fmt.Sprintf("SigNoz has no rule %s (HTTP 404)", ruleID)
	}
	if errors.Is(err, ErrRule) {
		return fmt.Sprintf("rule %s was read but is not run: %s", ruleID, strings.TrimPrefix(err.Error(), ErrRule.Error()+": "))
	}
	return fmt.Sprintf("rule %s could not be read: %s", ruleID, err)
}
