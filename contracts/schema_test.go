package contracts_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts"

	"github.com/invopop/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite schema/, testdata/ goldens and the compatibility snapshot")

// generateSchema reflects the Go type of subject into an indented JSON Schema.
// Additional properties are allowed: a v1 consumer must accept fields a newer
// producer added.
func generateSchema(t *testing.T, subject string) []byte {
	t.Helper()
	r := &jsonschema.Reflector{Anonymous: true, ExpandedStruct: true, AllowAdditionalProperties: true}
	s := r.Reflect(messageTypes()[subject]())
	s.Title = subject
	allowNull(s)
	for _, d := range s.Definitions {
		allowNull(d)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	require.NoError(t, err)
	return append(b, '\n')
}

// allowNull lets every list and map property be null: encoding/json writes a
// nil slice or map as null, and Go producers do.
func allowNull(s *jsonschema.Schema) {
	if s == nil || s.Properties == nil {
		return
	}
	for p := s.Properties.Oldest(); p != nil; p = p.Next() {
		v := p.Value
		isMap := v.Type == "object" && v.Properties == nil && v.Ref == ""
		if v.Type == "array" || isMap {
			p.Value = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{v, {Type: "null"}}}
		}
	}
}

func writeOrCompare(t *testing.T, path string, want []byte, what string) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, want, 0o644))
		return
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err, "%s missing: run go test ./contracts -update", what)
	require.Equal(t, string(want), string(got), "%s is stale: run go test ./contracts -run %s -update", path, t.Name())
}

func TestSchemasAreCurrent(t *testing.T) {
	for _, subject := range contracts.SchemaSubjects {
		t.Run(subject, func(t *testing.T) {
			writeOrCompare(t, filepath.Join("schema", subject+".json"), generateSchema(t, subject), "schema")
		})
	}
}

func TestGoldensExistForEverySubject(t *testing.T) {
	if *update {
		for subject, v := range examples() {
			var b []byte
			if raw, ok := v.(json.RawMessage); ok {
				var buf bytes.Buffer
				require.NoError(t, json.Indent(&buf, raw, "", "  "))
				b = buf.Bytes()
			} else {
				var err error
				b, err = json.MarshalIndent(v, "", "  ")
				require.NoError(t, err)
			}
			require.NoError(t, os.WriteFile(filepath.Join("testdata", subject+".json"), append(b, '\n'), 0o644))
		}
	}
	for _, subject := range contracts.SchemaSubjects {
		require.NotEmpty(t, contracts.Golden(subject), "golden of %s", subject)
		require.NotEmpty(t, contracts.Schema(subject), "schema of %s", subject)
	}
	require.Nil(t, contracts.Golden("agentk.nothing.v1"))
	require.Nil(t, contracts.Schema("agentk.nothing.v1"))
}

func compileSchema(t *testing.T, subject string) *sjs.Schema {
	t.Helper()
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(contracts.Schema(subject)))
	require.NoError(t, err)
	c := sjs.NewCompiler()
	c.AssertFormat()
	url := "mem://schema/" + subject + ".json"
	require.NoError(t, c.AddResource(url, doc))
	s, err := c.Compile(url)
	require.NoError(t, err)
	return s
}

func TestGoldensValidateAgainstSchemas(t *testing.T) {
	t.Parallel()
	for _, subject := range contracts.SchemaSubjects {
		t.Run(subject, func(t *testing.T) {
			t.Parallel()
			s := compileSchema(t, subject)
			doc, err := sjs.UnmarshalJSON(bytes.NewReader(contracts.Golden(subject)))
			require.NoError(t, err)
			require.NoError(t, s.Validate(doc))
		})
	}
}

func TestSchemasRejectBrokenMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		subject string
		mutate  func(m map[string]any)
	}{
		{"alert without incident id", contracts.SubjectAlert, func(m map[string]any) { delete(m, "incident_id") }},
		{"alert burn rate as text", contracts.SubjectAlert, func(m map[string]any) { m["burn_rate"] = "14.4" }},
		{"alert starts_at not a date-time", contracts.SubjectAlert, func(m map[string]any) { m["starts_at"] = "yesterday" }},
		{"decision checks not a list", contracts.SubjectDecision, func(m map[string]any) { m["checks"] = "all passed" }},
		{"envelope without signature", contracts.SubjectEnvelope, func(m map[string]any) { delete(m, "sig") }},
		{"action exit code as float", contracts.SubjectAction, func(m map[string]any) { m["exit_code"] = 1.5 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var m map[string]any
			require.NoError(t, json.Unmarshal(contracts.Golden(tc.subject), &m))
			tc.mutate(m)
			b, err := json.Marshal(m)
			require.NoError(t, err)
			doc, err := sjs.UnmarshalJSON(bytes.NewReader(b))
			require.NoError(t, err)
			require.Error(t, compileSchema(t, tc.subject).Validate(doc))
		})
	}
}

func TestGoldensRoundTrip(t *testing.T) {
	t.Parallel()
	for _, subject := range contracts.SchemaSubjects {
		t.Run(subject, func(t *testing.T) {
			t.Parallel()
			golden := contracts.Golden(subject)
			v := messageTypes()[subject]()
			dec := json.NewDecoder(bytes.NewReader(golden))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(v), "every golden field must exist in the Go type")
			again, err := json.Marshal(v)
			require.NoError(t, err)
			require.JSONEq(t, string(golden), string(again))
		})
	}
}

// TestGoldenEnvelopesVerify opens every envelope nested in the goldens with
// the golden keyring, as the consumers will.
func TestGoldenEnvelopesVerify(t *testing.T) {
	t.Parallel()
	k := contracts.GoldenKeyring()
	now := goldenNow.Add(time.Minute)
	var alert contracts.AlertV1
	_, err := k.Open(contracts.Golden(contracts.SubjectEnvelope), contracts.SubjectAlert, now, &alert)
	require.NoError(t, err)
	require.Equal(t, "shop-api", alert.Service)

	var report contracts.ReportV1
	require.NoError(t, json.Unmarshal(contracts.Golden(contracts.SubjectReport), &report))
	_, err = k.Open(report.Alert, contracts.SubjectAlert, now, &contracts.AlertV1{})
	require.NoError(t, err)
	for _, ev := range report.Evidence {
		_, err = k.Open(ev, contracts.SubjectEvidence, now, &contracts.EvidenceV1{})
		require.NoError(t, err)
	}

	var approval contracts.ApprovalV1
	require.NoError(t, json.Unmarshal(contracts.Golden(contracts.SubjectApproval), &approval))
	decEnv, err := k.Open(approval.Decision, contracts.SubjectDecision, now, &contracts.DecisionV1{})
	require.NoError(t, err)
	require.Equal(t, decEnv.Digest(), approval.DecisionDigest)

	var reply contracts.ToolReplyV1
	require.NoError(t, json.Unmarshal(contracts.Golden(contracts.SubjectToolReply), &reply))
	_, err = k.Open(reply.Evidence, contracts.SubjectEvidence, now, &contracts.EvidenceV1{})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(contracts.Golden(contracts.SubjectEnvelope)), "{"))
}

// TestZeroValuesValidate checks that what a Go producer writes for an empty
// message (nil lists and maps become null) is accepted by the schema.
func TestZeroValuesValidate(t *testing.T) {
	t.Parallel()
	for _, subject := range contracts.SchemaSubjects {
		if subject == contracts.SubjectEnvelope {
			continue
		}
		t.Run(subject, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(messageTypes()[subject]())
			require.NoError(t, err)
			doc, err := sjs.UnmarshalJSON(bytes.NewReader(b))
			require.NoError(t, err)
			require.NoError(t, compileSchema(t, subject).Validate(doc))
		})
	}
}
