package fakesignoz

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// servicesRequest is the body of SigNoz's legacy POST /api/v1/services:
// start and end as epoch-nanosecond strings.
type servicesRequest struct {
	Start string            `json:"start"`
	End   string            `json:"end"`
	Tags  []json.RawMessage `json:"tags,omitempty"`
}

// serviceItem is SigNoz's model.ServiceItem.
type serviceItem struct {
	ServiceName  string      `json:"serviceName"`
	Percentile99 float64     `json:"p99"`
	AvgDuration  float64     `json:"avgDuration"`
	NumCalls     uint64      `json:"numCalls"`
	CallRate     float64     `json:"callRate"`
	NumErrors    uint64      `json:"numErrors"`
	ErrorRate    float64     `json:"errorRate"`
	Num4XX       uint64      `json:"num4XX"`
	FourXXRate   float64     `json:"fourXXRate"`
	DataWarning  dataWarning `json:"dataWarning"`
}

type dataWarning struct {
	TopLevelOps []string `json:"topLevelOps"`
}

func parseNanos(s, what string) (time.Time, *apiError) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return time.Time{}, invalidInput("%s: expected epoch nanoseconds as a string, got %q", what, s)
	}
	return time.Unix(0, n), nil
}

// parseRange parses a services API window (start and end in epoch
// nanoseconds as strings) and refuses one that does not start before it ends.
func parseRange(startText, endText string) (start, end time.Time, _ *apiError) {
	start, err := parseNanos(startText, "start")
	if err != nil {
		return start, end, err
	}
	if end, err = parseNanos(endText, "end"); err != nil {
		return start, end, err
	}
	if !start.Before(end) {
		return start, end, invalidInput("start time must be before end time")
	}
	return start, end, nil
}

// serveServices answers like SigNoz's getServices: a bare JSON array, one item
// per service with entry spans (server or consumer) in the window.
func (s *Server) serveServices(w http.ResponseWriter, body []byte) int {
	var req servicesRequest
	if err := strictDecode(body, &req, "services request"); err != nil {
		return writeError(w, err)
	}
	if len(req.Tags) > 0 {
		return writeError(w, unsupported("tags on /api/v1/services are not implemented"))
	}
	start, end, err := parseRange(req.Start, req.End)
	if err != nil {
		return writeError(w, err)
	}
	// A window ending at the wall clock's now ("the last 6 hours", as the
	// official MCP server asks by default) is measured from the replay
	// clock, as query_range does; this legacy API has no warnings to say so.
	start, end, _ = s.windowNs(start, end)
	return writeJSON(w, http.StatusOK, services(s.store, start, end))
}

func services(st *store, start, end time.Time) []serviceItem {
	type acc struct {
		durations     []float64
		errors, fourx uint64
		ops           map[string]bool
	}
	by := map[string]*acc{}
	for i := range st.spans {
		r := &st.spans[i]
		if r.ts.Before(start) || r.ts.After(end) {
			continue
		}
		kind, _ := r.cols["kind"].(float64)
		if kind != 2 && kind != 5 {
			continue
		}
		name := r.resource["service.name"]
		a := by[name]
		if a == nil {
			a = &acc{ops: map[string]bool{}}
			by[name] = a
		}
		d, _ := r.cols["duration_nano"].(float64)
		a.durations = append(a.durations, d)
		if e, _ := r.cols["has_error"].(bool); e {
			a.errors++
		}
		if code, _ := r.cols["response_status_code"].(string); strings.HasPrefix(code, "4") && len(code) == 3 {
			a.fourx++
		}
		op, _ := r.cols["name"].(string)
		a.ops[op] = true
	}
	period := end.Sub(start).Seconds()
	out := []serviceItem{}
	for _, name := range slices.Sorted(maps.Keys(by)) {
		a := by[name]
		n := float64(len(a.durations))
		sum := 0.0
		for _, d := range a.durations {
			sum += d
		}
		ops := make([]string, 0, len(a.ops))
		for op := range a.ops {
			ops = append(ops, op)
		}
		slices.Sort(ops)
		out = append(out, serviceItem{
			ServiceName:  name,
			Percentile99: quantile(a.durations, 0.99),
			AvgDuration:  sum / n,
			NumCalls:     uint64(n),
			CallRate:     n / period,
			NumErrors:    a.errors,
			ErrorRate:    float64(a.errors) * 100 / n,
			Num4XX:       a.fourx,
			FourXXRate:   float64(a.fourx) * 100 / n,
			DataWarning:  dataWarning{TopLevelOps: ops},
		})
	}
	return out
}
