// Package tools is the sandbox's core: it validates and bounds a tool call,
// plans the SigNoz queries that answer it, and turns the responses into the
// compact text a model reads and the facts the gate uses. No I/O.
package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// Errors a caller can correct; each message is meant for the model to read.
var (
	ErrUnknownTool  = errors.New("tools: unknown tool")
	ErrBadArguments = errors.New("tools: bad arguments")
	ErrWindow       = errors.New("tools: time range refused")
	ErrExcluded     = errors.New("tools: service excluded")
	ErrBadResponse  = errors.New("tools: unusable SigNoz response")
)

// Limits bound every call.
type Limits struct {
	// MaxWindow is the longest range one call may query (6 h).
	MaxWindow time.Duration
	// MaxRows caps rows whatever the caller asks (50).
	MaxRows int
	// DefaultRows is used when the caller names no limit.
	DefaultRows int
	// Exclude are the pipeline's own services.
	Exclude []string
	// OriginShare is the least share of the alerted service's failing
	// traces that must begin in one callee for it to be Facts.Origin
	// (facts.DefaultOriginShare when 0).
	OriginShare float64
}

// DefaultLimits are the limits of the brief: 6 h, 50 rows.
func DefaultLimits(exclude []string) Limits {
	return Limits{MaxWindow: 6 * time.Hour, MaxRows: 50, DefaultRows: 20, Exclude: exclude, OriginShare: facts.DefaultOriginShare}
}

// Window is a closed time range.
type Window struct {
	From, To time.Time
}

// IncidentWindow derives the incident window from the signed alert's startsAt
// and the current time: [startsAt − 2h, max(now, startsAt + 30m)].
func IncidentWindow(startsAt, now time.Time) Window {
	to := startsAt.Add(30 * time.Minute)
	if now.After(to) {
		to = now
	}
	return Window{From: startsAt.Add(-2 * time.Hour).UTC(), To: to.UTC()}
}

// Call is a validated, bounded tool call.
type Call struct {
	Tool string
	Args contracts.ToolArgs
	// Service is the queried service (empty for get_trace).
	Service string
	// Window is the range queried, inside the limits.
	Window Window
	// Incident is the window derived from the alert; StartsAt the alert's start.
	Incident Window
	StartsAt time.Time
	// Limit is the bounded row count.
	Limit int
	// Filter is the canonical form of Args.Filter (aggregate_traces).
	Filter []Condition
	// Rule is the alert's own rule and its series, read by the adapter
	// before a service_overview is planned (RuleQueries); nil when no
	// reading was attempted.
	Rule *RuleRead
}

var serviceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$`)

// Validate checks raw arguments against the tool's JSON Schema from
// contracts.ToolSpecs, then against the sandbox's own bounds: the range must
// overlap the incident window and last at most MaxWindow, rows at most
// MaxRows, the service must not be one of the pipeline's own. Every error
// wraps ErrUnknownTool, ErrBadArguments, ErrWindow or ErrExcluded and reads as
// an instruction to fix the call.
func Validate(tool string, raw json.RawMessage, startsAt, now time.Time, lim Limits) (Call, error) {
	sch, ok := schemas()[tool]
	if !ok {
		return Call{}, fmt.Errorf("%w %q: the tools are %s", ErrUnknownTool, tool, strings.Join(toolNames(), ", "))
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return Call{}, fmt.Errorf("%w: %s: arguments are not a JSON object: %v", ErrBadArguments, tool, err)
	}
	if err := sch.Validate(inst); err != nil {
		return Call{}, fmt.Errorf("%w: %s: %s", ErrBadArguments, tool, schemaMessage(err))
	}
	var args contracts.ToolArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		return Call{}, fmt.Errorf("%w: %s: %v", ErrBadArguments, tool, err)
	}
	c := Call{Tool: tool, Args: args, Incident: IncidentWindow(startsAt, now), StartsAt: startsAt.UTC()}

	if tool != contracts.ToolGetTrace {
		c.Service = args.Service
		if !serviceName.MatchString(c.Service) {
			return Call{}, fmt.Errorf("%w: %s: service %q is not a service.name (letters, digits and ._:/@- only, at most 128)", ErrBadArguments, tool, c.Service)
		}
		if Excluded(c.Service, lim.Exclude) {
			return Call{}, fmt.Errorf("%w: %q is part of the incident-response pipeline itself; its telemetry is never investigated", ErrExcluded, c.Service)
		}
	}
	if c.Window, err = bound(args.From, args.To, c.Incident, lim.MaxWindow); err != nil {
		return Call{}, err
	}
	c.Limit = args.Limit
	if c.Limit == 0 {
		c.Limit = lim.DefaultRows
	}
	if c.Limit > lim.MaxRows {
		return Call{}, fmt.Errorf("%w: %s: limit %d is above the maximum of %d rows", ErrBadArguments, tool, c.Limit, lim.MaxRows)
	}
	if tool == contracts.ToolAggregateTraces {
		if c.Filter, err = ParseFilter(args.Filter); err != nil {
			return Call{}, fmt.Errorf("%w: %s: filter: %v", ErrBadArguments, tool, err)
		}
		for _, g := range args.GroupBy {
			if !allowedKey(g) {
				return Call{}, fmt.Errorf("%w: %s: group_by key %q is not allowed; use one of %s or an attribute under %s", ErrBadArguments, tool, g, strings.Join(spanKeys, ", "), strings.Join(attrPrefixes, ", "))
			}
		}
	}
	return c, nil
}

// bound fills an omitted range from the incident window and refuses ranges
// that are inverted, longer than max, or entirely outside the incident window.
func bound(from, to *time.Time, inc Window, max time.Duration) (Window, error) {
	w := inc
	if from != nil {
		w.From = from.UTC()
	}
	if to != nil {
		w.To = to.UTC()
	}
	if from == nil && to == nil && w.To.Sub(w.From) > max {
		// The default window grows with the clock: keep its start, where the
		// regression began, and cut it to the maximum.
		w.To = w.From.Add(max)
	}
	if from != nil && to == nil && w.To.Sub(w.From) > max {
		w.To = w.From.Add(max)
	}
	if to != nil && from == nil && w.To.Sub(w.From) > max {
		w.From = w.To.Add(-max)
	}
	if !w.To.After(w.From) {
		return Window{}, fmt.Errorf("%w: to %s is not after from %s", ErrWindow, w.To.Format(time.RFC3339), w.From.Format(time.RFC3339))
	}
	if d := w.To.Sub(w.From); d > max {
		return Window{}, fmt.Errorf("%w: %s is longer than the maximum of %s; ask for a shorter range", ErrWindow, d, max)
	}
	if !w.From.Before(inc.To) || !w.To.After(inc.From) {
		return Window{}, fmt.Errorf("%w: %s..%s does not overlap the incident window %s..%s", ErrWindow,
			w.From.Format(time.RFC3339), w.To.Format(time.RFC3339), inc.From.Format(time.RFC3339), inc.To.Format(time.RFC3339))
	}
	return w, nil
}

// Excluded reports whether service is one of the pipeline's own.
func Excluded(service string, exclude []string) bool {
	return slices.ContainsFunc(exclude, func(e string) bool { return strings.EqualFold(e, service) })
}

var schemas = sync.OnceValue(func() map[string]*jsonschema.Schema {
	out := map[string]*jsonschema.Schema{}
	for _, spec := range contracts.ToolSpecs() {
		b, err := json.Marshal(spec.Parameters)
		if err != nil {
			panic(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			panic(err)
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		url := "agentk:tool/" + spec.Name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			panic(err)
		}
		sch, err := c.Compile(url)
		if err != nil { // a contract bug: fail at start-up, loudly
			panic(fmt.Sprintf("tools: schema of %s: %v", spec.Name, err))
		}
		out[spec.Name] = sch
	}
	return out
})

func toolNames() []string {
	var names []string
	for _, s := range contracts.ToolSpecs() {
		names = append(names, s.Name)
	}
	return names
}

// schemaMessage flattens a validation error into one line per cause.
func schemaMessage(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			parts = append(parts, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(parts, "; ")
}
