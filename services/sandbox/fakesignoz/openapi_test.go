package fakesignoz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// openAPI validates answers against SigNoz's own OpenAPI description
// (testdata/contract/openapi.yml, OpenAPI 3.0.3). Its schemas are turned
// into JSON Schema (draft 2020-12) and checked with
// github.com/santhosh-tekuri/jsonschema/v6:
//
//   - nullable: true becomes a type that also allows null;
//   - oneOf becomes anyOf: SigNoz's unions have no required fields that would
//     make exactly one branch match (the discriminator is documentation);
//   - a schema with properties and no additionalProperties gets
//     additionalProperties: false, so an answer carrying a field SigNoz's
//     schema lacks fails: stricter than OpenAPI, on purpose;
//   - Querybuildertypesv5QueryData's union is dropped (its results are
//     "items: {}"): each result is validated on its own against the schema of
//     its request type (TimeSeriesData, ScalarData, RawData).
type openAPI struct {
	spec     map[string]any
	compiler *jsonschema.Compiler
	mu       sync.Mutex
	cache    map[string]*jsonschema.Schema
}

var loadOpenAPI = sync.OnceValues(func() (*openAPI, error) {
	raw, err := os.ReadFile(filepath.Join("testdata", "contract", "openapi.yml"))
	if err != nil {
		return nil, err
	}
	var spec map[string]any
	if err := yaml.Unmarshal(raw, &spec); err != nil {
		return nil, err
	}
	schemas := spec["components"].(map[string]any)["schemas"].(map[string]any)
	if qd, ok := schemas["Querybuildertypesv5QueryData"].(map[string]any); ok {
		delete(qd, "oneOf")
	}
	doc := map[string]any{"$defs": convertSchema(schemas, true)}
	// The response schemas of the paths, under $defs/response-<n>.
	o := &openAPI{spec: spec, cache: map[string]*jsonschema.Schema{}}
	defs := doc["$defs"].(map[string]any)
	n := 0
	for path, item := range spec["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			resp, _ := op.(map[string]any)["responses"].(map[string]any)
			ok, _ := resp["200"].(map[string]any)
			content, _ := ok["content"].(map[string]any)
			js, _ := content["application/json"].(map[string]any)
			if js == nil || js["schema"] == nil {
				continue
			}
			name := fmt.Sprintf("response-%d", n)
			n++
			defs[name] = convertSchema(js["schema"], false)
			o.spec[strings.ToUpper(method)+" "+path] = name
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	res, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///signoz-openapi.json", res); err != nil {
		return nil, err
	}
	o.compiler = c
	return o, nil
})

// convertSchema rewrites OpenAPI 3.0 schema objects into JSON Schema; top
// says v is the map of component schemas.
func convertSchema(v any, top bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		if top {
			for k, s := range x {
				out[k] = convertSchema(s, false)
			}
			return out
		}
		for k, s := range x {
			switch k {
			case "$ref":
				out[k] = strings.Replace(s.(string), "#/components/schemas/", "#/$defs/", 1)
			case "nullable", "discriminator", "example", "deprecated", "x-go-name":
			case "oneOf":
				out["anyOf"] = convertSchema(s, false)
			case "properties":
				props := map[string]any{}
				for name, p := range s.(map[string]any) {
					props[name] = convertSchema(p, false)
				}
				out[k] = props
			default:
				out[k] = convertSchema(s, false)
			}
		}
		if x["nullable"] == true {
			if t, ok := out["type"].(string); ok {
				out["type"] = []any{t, "null"}
			}
		}
		if _, hasProps := x["properties"]; hasProps {
			if _, set := x["additionalProperties"]; !set {
				out["additionalProperties"] = false
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = convertSchema(s, false)
		}
		return out
	}
	return v
}

func (o *openAPI) schema(t testing.TB, def string) *jsonschema.Schema {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if s, ok := o.cache[def]; ok {
		return s
	}
	s, err := o.compiler.Compile("file:///signoz-openapi.json#/$defs/" + def)
	require.NoError(t, err, def)
	o.cache[def] = s
	return s
}

// validateComponent checks body against a component schema.
func (o *openAPI) validateComponent(t testing.TB, component string, body []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	require.NoError(t, err)
	require.NoError(t, o.schema(t, component).Validate(inst), "%s does not validate against %s: %s", truncate(body), component, "")
}

// validateResponse checks a 200 body against the response schema of method
// and the templated path; ok is false when SigNoz's OpenAPI does not
// describe that endpoint.
func (o *openAPI) validateResponse(t testing.TB, method, pathTemplate string, body []byte) (ok bool) {
	t.Helper()
	def, found := o.spec[method+" "+pathTemplate].(string)
	if !found {
		return false
	}
	o.validateComponent(t, def, body)
	return true
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

func TestOpenAPIValidatorCanFail(t *testing.T) {
	t.Parallel()
	o, err := loadOpenAPI()
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"status":"success","data":{"keys":{"x":[{"name":"x","fieldContext":"nowhere"}]},"complete":true}}`))
	require.NoError(t, err)
	s := o.schema(t, o.spec["GET /api/v1/fields/keys"].(string))
	require.Error(t, s.Validate(inst), "an unknown fieldContext is refused")
	inst, err = jsonschema.UnmarshalJSON(strings.NewReader(`{"status":"success","data":{"keys":{},"complete":true,"extra":1}}`))
	require.NoError(t, err)
	require.Error(t, s.Validate(inst), "a field SigNoz's schema lacks is refused")
	inst, err = jsonschema.UnmarshalJSON(strings.NewReader(`{"status":"success","data":{"keys":null,"complete":true}}`))
	require.NoError(t, err)
	require.NoError(t, s.Validate(inst), "nullable keys accept null")
}
