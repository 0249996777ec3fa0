package signoz

import (
	"fmt"

	"github.com/segmentio/encoding/json"
)

// Cut says, in plain words, where resp holds fewer rows or groups than
// req's query matched: a raw result that carries a cursor to a next page
// (SigNoz sets nextCursor when the limit was reached), or a grouped answer
// with exactly as many groups as the query's limit. Empty when the answer
// is whole. An evidence built on a cut answer says so (issue 32: never
// decide on a silently cut answer).
func Cut(req QueryRangeRequest, resp Response) []string {
	limits := map[string]int{}
	for _, q := range req.CompositeQuery.Queries {
		limits[q.Spec.Name] = q.Spec.Limit
	}
	var out []string
	for _, raw := range resp.Data.Results {
		var r struct {
			QueryName  string            `json:"queryName"`
			NextCursor string            `json:"nextCursor"`
			Rows       []json.RawMessage `json:"rows"`
			Data       [][]any           `json:"data"`
			Columns    []struct {
				ColumnType string `json:"columnType"`
			} `json:"columns"`
			Aggregations []struct {
				Series []json.RawMessage `json:"series"`
			} `json:"aggregations"`
		}
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		lim := limits[r.QueryName]
		switch {
		case r.NextCursor != "":
			out = append(out, fmt.Sprintf("query %s: %d rows returned, its limit; SigNoz holds a next page (nextCursor)", r.QueryName, len(r.Rows)))
		case lim > 0 && grouped(req, r.QueryName) && len(r.Data) >= lim:
			out = append(out, fmt.Sprintf("query %s: %d groups returned, its limit; more groups may exist", r.QueryName, len(r.Data)))
		case lim > 0 && grouped(req, r.QueryName) && len(r.Aggregations) > 0 && len(r.Aggregations[0].Series) >= lim:
			out = append(out, fmt.Sprintf("query %s: %d series returned, its limit; more series may exist", r.QueryName, len(r.Aggregations[0].Series)))
		}
	}
	return out
}

// grouped reports whether the query named name groups its answer.
func grouped(req QueryRangeRequest, name string) bool {
	for _, q := range req.CompositeQuery.Queries {
		if q.Spec.Name == name {
			return len(q.Spec.GroupBy) > 0
		}
	}
	return false
}
