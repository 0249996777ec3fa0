package mcpserver

import (
	"fmt"
	"strings"
)

// Query limits the official server fills in (pkg/types/querybuilder.go).
const (
	defaultLimit = 100
	maxLimit     = 10000
)

// applyBounds fills in what a builder query leaves out, as the official
// server does before it sends a query to SigNoz: a missing or zero limit
// becomes 100, a missing order a signal-safe default (raw: timestamp desc,
// logs also id desc; grouped: the first aggregation desc). It returns the
// "[Decisions applied]" note, empty when the query had both; or an error
// the server refuses the query with.
func applyBounds(q map[string]any) (string, error) {
	rt, _ := q["requestType"].(string)
	if rt == "" {
		rt = "raw"
	}
	cq, _ := q["compositeQuery"].(map[string]any)
	queries, _ := cq["queries"].([]any)
	var lines []string
	for i, e := range queries {
		env, _ := e.(map[string]any)
		spec, _ := env["spec"].(map[string]any)
		if env["type"] != "builder_query" || spec == nil {
			continue
		}
		name := queryName(spec, i)
		limit, _ := spec["limit"].(float64)
		switch {
		case limit < 0:
			return "", fmt.Errorf("%s: compositeQuery.queries[%d].spec.limit received %v; use a positive integer", name, i, limit)
		case limit > maxLimit:
			return "", fmt.Errorf("%s: compositeQuery.queries[%d].spec.limit received %v; the Query Builder maximum is %d", name, i, limit, maxLimit)
		}
		var decisions []string
		if limit == 0 {
			spec["limit"] = defaultLimit
			decisions = append(decisions, fmt.Sprintf("limit=%d (request-type default)", defaultLimit))
		}
		if order, _ := spec["order"].([]any); len(order) == 0 {
			def, err := defaultOrder(spec, rt, name)
			if err != nil {
				return "", err
			}
			spec["order"] = def
			decisions = append(decisions, "order="+orderText(def)+" (signal-safe default)")
		}
		if len(decisions) > 0 {
			lines = append(lines, fmt.Sprintf("  %s: %s", name, strings.Join(decisions, ", ")))
		}
	}
	if len(lines) == 0 {
		return "", nil
	}
	note := "[Decisions applied]\n" + strings.Join(lines, "\n")
	if rt == "time_series" {
		note += "\n  NOTE: time_series limits select top groups using the ordering across the entire time range; a short-lived spike can fall outside the selected groups."
	}
	return note, nil
}

func queryName(spec map[string]any, i int) string {
	if n, _ := spec["name"].(string); strings.TrimSpace(n) != "" {
		return fmt.Sprintf("query %q", n)
	}
	return fmt.Sprintf("query at position %d", i+1)
}

func order(keys ...string) []any {
	var out []any
	for _, k := range keys {
		out = append(out, map[string]any{"key": map[string]any{"name": k}, "direction": "desc"})
	}
	return out
}

func defaultOrder(spec map[string]any, requestType, name string) ([]any, error) {
	signal, _ := spec["signal"].(string)
	switch requestType {
	case "raw", "trace":
		switch signal {
		case "logs":
			return order("timestamp", "id"), nil
		case "traces":
			return order("timestamp"), nil
		}
	case "scalar", "time_series":
		if signal == "logs" || signal == "traces" {
			aggs, _ := spec["aggregations"].([]any)
			var expr string
			if len(aggs) > 0 {
				a, _ := aggs[0].(map[string]any)
				expr, _ = a["expression"].(string)
			}
			expr = stripAlias(strings.TrimSpace(expr))
			if expr == "" {
				return nil, fmt.Errorf("%s: spec.order is missing and aggregations[0].expression could not be determined; add an explicit spec.order", name)
			}
			return order(expr), nil
		}
	}
	return nil, fmt.Errorf("%s: no safe default order exists for signal %q and requestType %q; provide spec.order explicitly", name, signal, requestType)
}

// stripAlias drops a top-level " as alias" from an aggregation expression.
func stripAlias(expr string) string {
	depth := 0
	lower := strings.ToLower(expr)
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ' ':
			if depth == 0 && strings.HasPrefix(lower[i:], " as ") {
				return strings.TrimSpace(expr[:i])
			}
		}
	}
	return expr
}

func orderText(o []any) string {
	var parts []string
	for _, e := range o {
		m, _ := e.(map[string]any)
		k, _ := m["key"].(map[string]any)
		name, _ := k["name"].(string)
		dir, _ := m["direction"].(string)
		parts = append(parts, strings.TrimSpace(name)+" "+strings.ToLower(dir))
	}
	return strings.Join(parts, ", ")
}
