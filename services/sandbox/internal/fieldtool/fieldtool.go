// Package fieldtool is the sandbox's list_fields tool: field discovery for
// the model. Without a key it lists the attribute keys SigNoz knows for a
// signal (name, context, data type); with a key, the values that key takes.
// It answers from GET /api/v1/fields/keys and /values on the direct route,
// from signoz_get_field_keys and signoz_get_field_values on the MCP route;
// the evidence is the same either way.
//
// Values of service.name never show the pipeline's own services.
package fieldtool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrBadArguments is wrapped by every refusal of the arguments.
var ErrBadArguments = errors.New("fieldtool: bad arguments")

// Querier answers field queries (signoz.Client, mcpbackend.Client).
type Querier interface {
	FieldKeys(ctx context.Context, signal, search string) (signoz.FieldsResult, error)
	FieldValues(ctx context.Context, signal, name, search string) (signoz.FieldsResult, error)
}

// Call is a validated list_fields call.
type Call struct {
	Signal string `json:"signal"`
	Key    string `json:"key,omitempty"`
	Search string `json:"search,omitempty"`
	Limit  int    `json:"limit"`
}

// Validate checks raw arguments against list_fields' schema in
// contracts.ToolSpecs and the row limit.
func Validate(raw json.RawMessage, lim tools.Limits) (Call, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return Call{}, fmt.Errorf("%w: list_fields: arguments are not a JSON object: %v", ErrBadArguments, err)
	}
	if err := tools.Schema(contracts.ToolListFields).Validate(inst); err != nil {
		return Call{}, fmt.Errorf("%w: list_fields: %v (signal is traces or logs; key is a field name; search at most 100 characters; limit 1..%d)", ErrBadArguments, oneLine(err), lim.MaxRows)
	}
	var args contracts.ToolArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		return Call{}, fmt.Errorf("%w: list_fields: %v", ErrBadArguments, err)
	}
	c := Call{Signal: args.Signal, Key: args.Key, Search: args.Search, Limit: args.Limit}
	if c.Limit == 0 {
		c.Limit = lim.DefaultRows
	}
	if c.Limit > lim.MaxRows {
		return Call{}, fmt.Errorf("%w: list_fields: limit %d is above the maximum of %d rows", ErrBadArguments, c.Limit, lim.MaxRows)
	}
	return c, nil
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// Output is the evidence of one call.
type Output struct {
	Compact string
	Facts   contracts.Facts
	// Body is SigNoz's answer, hashed into the evidence.
	Body []byte
}

// isServiceKey reports whether key names service.name (in any spelling a
// filter accepts), whose values must not show the pipeline's own services.
func isServiceKey(key string) bool {
	k := strings.TrimPrefix(strings.TrimPrefix(key, "resource."), "resource:")
	return k == "service.name" || k == "serviceName"
}

// Run queries q and builds the evidence.
func Run(ctx context.Context, q Querier, c Call, lim tools.Limits, cl compact.Limits) (Output, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "tool: %s\nsignal: %s\n", contracts.ToolListFields, c.Signal)
	if c.Key != "" {
		fmt.Fprintf(&b, "key: %s\n", compact.Quote(c.Key))
	}
	if c.Search != "" {
		fmt.Fprintf(&b, "search: %s\n", compact.Quote(c.Search))
	}
	var rows []any
	var res signoz.FieldsResult
	var err error
	if c.Key == "" {
		res, err = q.FieldKeys(ctx, c.Signal, c.Search)
		if err != nil {
			return Output{}, err
		}
		var keys []signoz.FieldKey
		for _, ks := range res.Fields.Keys {
			keys = append(keys, ks...)
		}
		slices.SortFunc(keys, func(a, b signoz.FieldKey) int {
			return strings.Compare(a.Name+"\x00"+a.FieldContext+"\x00"+a.FieldDataType, b.Name+"\x00"+b.FieldContext+"\x00"+b.FieldDataType)
		})
		keys = slices.CompactFunc(keys, func(a, b signoz.FieldKey) bool { return a == b })
		fmt.Fprintf(&b, "keys found: %d (showing at most %d; context: resource, attribute, or the signal's own column)\n", len(keys), c.Limit)
		for i, k := range keys {
			if i >= c.Limit {
				break
			}
			rows = append(rows, map[string]any{"key": k.Name, "context": k.FieldContext, "type": k.FieldDataType})
		}
	} else {
		res, err = q.FieldValues(ctx, c.Signal, c.Key, c.Search)
		if err != nil {
			return Output{}, err
		}
		v := res.Fields.Values
		strs := slices.Clone(v.StringValues)
		if isServiceKey(c.Key) && !mutant.Off(mutant.SandboxFieldsExclude) {
			strs = slices.DeleteFunc(strs, func(s string) bool { return tools.Excluded(s, lim.Exclude) })
		}
		var vals []any
		for _, s := range strs {
			vals = append(vals, s)
		}
		for _, n := range v.NumberValues {
			vals = append(vals, strconv.FormatFloat(n, 'f', -1, 64))
		}
		for _, x := range v.BoolValues {
			vals = append(vals, strconv.FormatBool(x))
		}
		fmt.Fprintf(&b, "values found: %d (showing at most %d)\n", len(vals), c.Limit)
		for i, x := range vals {
			if i >= c.Limit {
				break
			}
			rows = append(rows, map[string]any{"value": x})
		}
	}
	out := Output{Compact: b.String() + compact.Block(rows, cl), Body: res.Body}
	out.Facts.Numbers = compact.Numbers(out.Compact)
	return out, nil
}
