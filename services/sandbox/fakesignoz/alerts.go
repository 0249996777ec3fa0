package fakesignoz

import (
	"encoding/json"
	"hash/fnv"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The alert endpoints answer from the incident's alert.json, the webhook body
// SigNoz posted: GET /api/v1/alerts lists its alerts (SigNoz's
// AlertmanagertypesDeprecatedGettableAlert), GET /api/v2/rules and
// /api/v2/rules/{id} the rule each alert names in its ruleId label
// (RuletypesRule), and /api/v2/rules/{id}/history/timeline the state changes
// the webhook shows: firing at startsAt, and inactive again at endsAt for a
// resolved alert. What alert.json does not carry (the rule's query, its
// evaluation window) is left out rather than guessed: the rule's
// compositeQuery has no queries. An incident's optional rule.json (SigNoz's
// own answer for its rule) is served as it is for that rule's id instead.

type webhookBody struct {
	Receiver string         `json:"receiver"`
	Status   string         `json:"status"`
	Alerts   []webhookAlert `json:"alerts"`
}

type webhookAlert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Fingerprint  string            `json:"fingerprint"`
}

func (s *Server) webhook() webhookBody {
	var b webhookBody
	if s.inc != nil && len(s.inc.AlertJSON) > 0 {
		_ = json.Unmarshal(s.inc.AlertJSON, &b)
	}
	return b
}

type gettableAlert struct {
	Annotations  map[string]string `json:"annotations"`
	EndsAt       time.Time         `json:"endsAt"`
	Fingerprint  string            `json:"fingerprint"`
	GeneratorURL string            `json:"generatorURL"`
	Labels       map[string]string `json:"labels"`
	Receivers    []string          `json:"receivers"`
	StartsAt     time.Time         `json:"startsAt"`
	Status       alertStatus       `json:"status"`
}

type alertStatus struct {
	InhibitedBy []string `json:"inhibitedBy"`
	SilencedBy  []string `json:"silencedBy"`
	State       string   `json:"state"`
}

func (s *Server) serveAlerts(w http.ResponseWriter, _ call) int {
	b := s.webhook()
	out := []gettableAlert{}
	for _, a := range b.Alerts {
		if a.Status != "firing" {
			continue // Alertmanager lists active alerts only
		}
		out = append(out, gettableAlert{
			Annotations: nonNil(a.Annotations), EndsAt: a.EndsAt, Fingerprint: a.Fingerprint,
			GeneratorURL: a.GeneratorURL, Labels: nonNil(a.Labels), Receivers: []string{b.Receiver},
			StartsAt: a.StartsAt, Status: alertStatus{InhibitedBy: []string{}, SilencedBy: []string{}, State: "active"},
		})
	}
	return writeSuccess(w, out)
}

type rule struct {
	ID          string            `json:"id"`
	State       string            `json:"state"`
	Alert       string            `json:"alert"`
	AlertType   string            `json:"alertType"`
	RuleType    string            `json:"ruleType"`
	Condition   ruleCondition     `json:"condition"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	Description string            `json:"description,omitempty"`
	Disabled    bool              `json:"disabled"`
	Source      string            `json:"source,omitempty"`
	Version     string            `json:"version"`

	alerts []webhookAlert
}

type ruleCondition struct {
	CompositeQuery ruleQuery `json:"compositeQuery"`
	Op             string    `json:"op,omitempty"`
	Target         *float64  `json:"target,omitempty"`
	MatchType      string    `json:"matchType,omitempty"`
}

type ruleQuery struct {
	Queries   []any  `json:"queries"`
	PanelType string `json:"panelType"`
	QueryType string `json:"queryType"`
}

// rules derives one rule per ruleId label, in id order.
func (s *Server) rules() []*rule {
	b := s.webhook()
	byID := map[string]*rule{}
	for _, a := range b.Alerts {
		id := a.Labels["ruleId"]
		if id == "" {
			continue
		}
		r := byID[id]
		if r == nil {
			labels := map[string]string{}
			for k, v := range a.Labels {
				switch k {
				case "alertname", "ruleId", "ruleSource", "threshold.name":
				default:
					labels[k] = v
				}
			}
			annotations := map[string]string{}
			for k, v := range a.Annotations {
				switch k {
				case "description", "summary":
					annotations[k] = v
				}
			}
			alertType := "TRACES_BASED_ALERT"
			if t := a.Labels["alertType"]; t != "" {
				alertType = t
			}
			r = &rule{
				ID: id, State: "inactive", Alert: a.Labels["alertname"], AlertType: alertType,
				RuleType: "threshold_rule", Labels: labels, Annotations: annotations,
				Description: a.Annotations["description"], Source: a.Labels["ruleSource"], Version: "v5",
				Condition: ruleCondition{CompositeQuery: ruleQuery{Queries: []any{}, PanelType: "graph", QueryType: "builder"}},
			}
			if t, err := strconv.ParseFloat(a.Annotations["threshold"], 64); err == nil {
				r.Condition.Target, r.Condition.Op, r.Condition.MatchType = &t, "above", "at_least_once"
			}
			byID[id] = r
		}
		if a.Status == "firing" {
			r.State = "firing"
		}
		r.alerts = append(r.alerts, a)
	}
	out := make([]*rule, 0, len(byID))
	for _, r := range byID {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (s *Server) serveRules(w http.ResponseWriter, _ call) int {
	return writeSuccess(w, s.rules())
}

func (s *Server) findRule(id string) *rule {
	for _, r := range s.rules() {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func (s *Server) serveRule(w http.ResponseWriter, c call) int {
	if b, ok := s.recordedRule(c.params["id"]); ok {
		return writeRaw(w, b)
	}
	r := s.findRule(c.params["id"])
	if r == nil {
		return writeError(w, notFound("rule with id %s not found", c.params["id"]))
	}
	return writeSuccess(w, r)
}

type ruleTimeline struct {
	Items      []ruleStateHistory `json:"items"`
	Total      int                `json:"total"`
	NextCursor string             `json:"nextCursor,omitempty"`
}

type ruleStateHistory struct {
	RuleID              string   `json:"ruleId"`
	RuleName            string   `json:"ruleName"`
	OverallState        string   `json:"overallState"`
	OverallStateChanged bool     `json:"overallStateChanged"`
	State               string   `json:"state"`
	StateChanged        bool     `json:"stateChanged"`
	UnixMilli           int64    `json:"unixMilli"`
	Labels              []*label `json:"labels"`
	Fingerprint         uint64   `json:"fingerprint"`
	Value               float64  `json:"value"`
	RelatedTracesLink   string   `json:"relatedTracesLink,omitempty"`
	RelatedLogsLink     string   `json:"relatedLogsLink,omitempty"`
}

func fingerprintOf(a webhookAlert) uint64 {
	if n, err := strconv.ParseUint(a.Fingerprint, 16, 64); err == nil {
		return n
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(a.Fingerprint))
	return h.Sum64()
}

func (s *Server) serveRuleTimeline(w http.ResponseWriter, c call) int {
	r := s.findRule(c.params["id"])
	if r == nil {
		return writeError(w, notFound("rule with id %s not found", c.params["id"]))
	}
	tq, err := s.timelineQuery(c.query)
	if err != nil {
		return writeError(w, err)
	}
	items := slices.DeleteFunc(timelineOf(r), func(e ruleStateHistory) bool {
		return e.UnixMilli < tq.start || e.UnixMilli > tq.end || (tq.state != "" && e.State != tq.state)
	})
	sort.SliceStable(items, func(i, j int) bool {
		if tq.order == "desc" {
			return items[i].UnixMilli > items[j].UnixMilli
		}
		return items[i].UnixMilli < items[j].UnixMilli
	})
	out := ruleTimeline{Items: []ruleStateHistory{}, Total: len(items)}
	if len(items) > tq.limit {
		items = items[:tq.limit]
	}
	out.Items = append(out.Items, items...)
	return writeSuccess(w, out)
}

// timelineQuery is a rule timeline request's parameters.
type timelineQuery struct {
	start, end   int64 // epoch ms, inside the fake's window
	limit        int
	order, state string
}

func (s *Server) timelineQuery(q url.Values) (timelineQuery, *apiError) {
	tq := timelineQuery{limit: 20, order: strings.ToLower(q.Get("order")), state: q.Get("state")}
	for name, dst := range map[string]*int64{"start": &tq.start, "end": &tq.end} {
		v := q.Get(name)
		if v == "" {
			return tq, invalidInput("%s is required (epoch milliseconds)", name)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return tq, invalidInput("invalid %s %q: expected epoch milliseconds", name, v)
		}
		*dst = n
	}
	if tq.start >= tq.end {
		return tq, invalidInput("start must be before end")
	}
	us, ue, _ := s.window(uint64(tq.start), uint64(tq.end))
	tq.start, tq.end = int64(us), int64(ue)
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return tq, invalidInput("invalid limit %q", v)
		}
		tq.limit = n
	}
	if tq.order == "" {
		tq.order = "asc"
	}
	if tq.order != "asc" && tq.order != "desc" {
		return tq, invalidInput("invalid order %q; allowed values: asc, desc", tq.order)
	}
	if q.Get("cursor") != "" || q.Get("filterExpression") != "" {
		return tq, unsupported("cursor and filterExpression on the rule timeline are not implemented")
	}
	return tq, nil
}

// timelineOf is a rule's state changes: each alert firing at its start and,
// once resolved, inactive at its end.
func timelineOf(r *rule) []ruleStateHistory {
	var items []ruleStateHistory
	for _, a := range r.alerts {
		labels := []*label{}
		for _, k := range slices.Sorted(maps.Keys(a.Labels)) {
			labels = append(labels, &label{Key: fieldKey{Name: k}, Value: a.Labels[k]})
		}
		value, _ := strconv.ParseFloat(a.Annotations["value"], 64)
		entry := ruleStateHistory{
			RuleID: r.ID, RuleName: r.Alert, OverallState: "firing", OverallStateChanged: true,
			State: "firing", StateChanged: true, UnixMilli: a.StartsAt.UnixMilli(), Labels: labels,
			Fingerprint: fingerprintOf(a), Value: value,
			RelatedTracesLink: a.Annotations["related_traces"], RelatedLogsLink: a.Annotations["related_logs"],
		}
		items = append(items, entry)
		if a.Status == "resolved" && a.EndsAt.After(a.StartsAt) {
			resolved := entry
			resolved.OverallState, resolved.State, resolved.UnixMilli = "inactive", "inactive", a.EndsAt.UnixMilli()
			items = append(items, resolved)
		}
	}
	return items
}

// recordedRule is the incident's rule.json, SigNoz's own answer to
// GET /api/v2/rules/{id}, when its data.id is id: it is served byte for
// byte, with the rule's queries, in place of the rule derived from the
// webhook.
func (s *Server) recordedRule(id string) ([]byte, bool) {
	if s.inc == nil || len(s.inc.RuleJSON) == 0 {
		return nil, false
	}
	var r struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(s.inc.RuleJSON, &r) != nil || r.Data.ID != id {
		return nil, false
	}
	return s.inc.RuleJSON, true
}

// writeRaw writes a recorded success body as it is.
func writeRaw(w http.ResponseWriter, body []byte) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return http.StatusOK
}
