package incident

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// FileRule is the optional alert rule: the body of SigNoz's
// GET /api/v2/rules/{id} for the rule the alert names in its ruleId label.
const FileRule = "rule.json"

// Query envelope types of a rule's compositeQuery (SigNoz's
// Querybuildertypesv5QueryEnvelope discriminator).
var ruleQueryTypes = []string{"builder_query", "builder_formula", "builder_trace_operator", "builder_ai_query", "promql", "clickhouse_sql"}

// ruleSignals are the signals a builder query may read.
var ruleSignals = []string{"traces", "logs", "metrics"}

// rawRule is the part of SigNoz's rule body the format checks: the envelope,
// the rule's id and name, and its compositeQuery. The rest (thresholds,
// evaluation, labels) is kept byte for byte in RuleJSON and read by whoever
// needs it.
type rawRule struct {
	Status *string `json:"status"`
	Data   *struct {
		ID        *string `json:"id"`
		Alert     *string `json:"alert"`
		Condition *struct {
			CompositeQuery *struct {
				Queries []rawRuleQuery `json:"queries"`
			} `json:"compositeQuery"`
		} `json:"condition"`
	} `json:"data"`
}

// rawRuleQuery is one query envelope of a rule's compositeQuery.
type rawRuleQuery struct {
	Type *string `json:"type"`
	Spec *struct {
		Name       *string `json:"name"`
		Signal     *string `json:"signal"`
		Expression *string `json:"expression"`
	} `json:"spec"`
}

// checkRule checks that rule.json is SigNoz's answer to GET /api/v2/rules/{id}
// ({"status":"success","data":{id, alert, condition.compositeQuery.queries}})
// for a rule an alert of alert.json names in its ruleId label (ruleIDs; nil
// when alert.json could not be read). It returns the rule's id.
func checkRule(b []byte, ruleIDs []string, ps *problems) string {
	var r rawRule
	if err := json.Unmarshal(b, &r); err != nil {
		line := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line = lineAt(b, se.Offset)
		case errors.As(err, &te):
			line = lineAt(b, te.Offset)
			if te.Field != "" {
				ps.addf(FileRule, line, te.Field, "not %s", te.Type)
				return ""
			}
		}
		ps.addf(FileRule, line, "", "not a JSON object: %v", err)
		return ""
	}
	fail := func(field, format string, args ...any) { ps.addf(FileRule, 0, field, format, args...) }
	if r.Status == nil || *r.Status != "success" {
		fail("status", `required: "success" (the body of SigNoz's GET /api/v2/rules/{id})`)
	}
	if r.Data == nil {
		fail("data", "required: the rule (SigNoz's RuletypesRule)")
		return ""
	}
	d := r.Data
	id := ""
	switch {
	case d.ID == nil || *d.ID == "":
		fail("data.id", "required: the rule's id")
	case ruleIDs != nil && !slices.Contains(ruleIDs, *d.ID):
		id = *d.ID
		fail("data.id", "%q is not the ruleId label of any alert in %s (%q)", id, FileAlert, ruleIDs)
	default:
		id = *d.ID
	}
	if d.Alert == nil || *d.Alert == "" {
		fail("data.alert", "required: the rule's name")
	}
	if d.Condition == nil || d.Condition.CompositeQuery == nil {
		fail("data.condition.compositeQuery", "required: the rule's queries")
		return id
	}
	for i, q := range d.Condition.CompositeQuery.Queries {
		checkRuleQuery(q, fmt.Sprintf("data.condition.compositeQuery.queries[%d]", i), fail)
	}
	return id
}

// checkRuleQuery checks one query envelope of the rule, at field f.
func checkRuleQuery(q rawRuleQuery, f string, fail func(field, format string, args ...any)) {
	if q.Type == nil || !slices.Contains(ruleQueryTypes, *q.Type) {
		fail(f+".type", "required: one of %q", ruleQueryTypes)
		return
	}
	if q.Spec == nil {
		fail(f+".spec", "required: the query's spec")
		return
	}
	named := q.Spec.Name != nil && *q.Spec.Name != ""
	switch *q.Type {
	case "builder_query":
		if !named {
			fail(f+".spec.name", "required: the query's name (A, B, F1, …)")
		}
		if q.Spec.Signal == nil || !slices.Contains(ruleSignals, *q.Spec.Signal) {
			fail(f+".spec.signal", "required: one of %q", ruleSignals)
		}
	case "builder_formula":
		if !named {
			fail(f+".spec.name", "required: the query's name (A, B, F1, …)")
		}
		if q.Spec.Expression == nil || *q.Spec.Expression == "" {
			fail(f+".spec.expression", "required: the formula (e.g. A / B)")
		}
	}
}

// alertRuleIDs are the ruleId labels of alert.json's alerts, or nil when it
// cannot be read (checkAlert reports that).
func alertRuleIDs(b []byte) []string {
	var body struct {
		Alerts []struct {
			Labels map[string]string `json:"labels"`
		} `json:"alerts"`
	}
	if json.Unmarshal(b, &body) != nil {
		return nil
	}
	ids := []string{}
	for _, a := range body.Alerts {
		if id := a.Labels["ruleId"]; id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}
