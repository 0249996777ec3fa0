package scripted_test

import (
	"encoding/json"
	"testing"

	"agentk/services/investigator/scripted"

	"github.com/stretchr/testify/require"
)

// TestOracleDiagnosesTheCulprit: told that a callee's release broke the
// incident (expect.culprit), the oracle claims it with the claim's service
// set to the callee, citing the evidence about the callee (and the alerted
// overview that names it), never evidence of other services alone; told no
// culprit, or the alerted service, it claims as before, with no service.
func TestOracleDiagnosesTheCulprit(t *testing.T) {
	t.Parallel()
	sectionOf := func(id, tool, svc string) string {
		return "BEGIN DATA " + nonce + " evidence id=" + id + " tool=" + tool + " service=" + svc + "\nrows\nEND DATA " + nonce + "\n"
	}
	evidence := []string{sectionOf("ov-1", "service_overview", "shop-api"), sectionOf("mk-1", "deployment_markers", "shop-api"),
		sectionOf("mk-2", "deployment_markers", "ledger"), sectionOf("ov-2", "service_overview", "ledger")}
	tests := []struct {
		name    string
		culprit string
		service string
		cites   []string
	}{
		{"a callee's release", "ledger", "ledger", []string{"mk-2", "ov-2", "ov-1"}},
		{"no culprit", "", "", []string{"mk-1", "mk-2", "ov-1", "ov-2"}},
		{"the alerted service itself", "shop-api", "", []string{"mk-1", "mk-2", "ov-1", "ov-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := scripted.New(scripted.Oracle, scripted.WithTruth("bad_release"), scripted.WithCulprit(tt.culprit))
			_, r := post(t, h, body(t, false, evidence...))
			require.Len(t, r.Choices, 1)
			require.NotNil(t, r.Choices[0].Message.Content)
			var a struct {
				Claims []struct {
					Class       string   `json:"class"`
					EvidenceIDs []string `json:"evidence_ids"`
					Service     string   `json:"service"`
				} `json:"claims"`
			}
			require.NoError(t, json.Unmarshal([]byte(*r.Choices[0].Message.Content), &a))
			require.Len(t, a.Claims, 1)
			require.Equal(t, "bad_release", a.Claims[0].Class)
			require.Equal(t, tt.service, a.Claims[0].Service)
			require.ElementsMatch(t, tt.cites, a.Claims[0].EvidenceIDs)
		})
	}
}

// TestOracleGathersTheCulpritsEvidence: when the conversation holds no
// evidence about the culprit, the oracle asks for its deployment markers,
// then its overview, before it answers.
func TestOracleGathersTheCulpritsEvidence(t *testing.T) {
	t.Parallel()
	h := scripted.New(scripted.Oracle, scripted.WithTruth("bad_release"), scripted.WithCulprit("ledger"))
	b := body(t, false, "BEGIN DATA "+nonce+" evidence id=ov-1 tool=service_overview service=shop-api\nrows\nEND DATA "+nonce+"\n")
	var req map[string]any
	require.NoError(t, json.Unmarshal(b, &req))
	req["tools"] = []map[string]any{{"type": "function", "function": map[string]any{"name": "deployment_markers", "parameters": map[string]any{}}},
		{"type": "function", "function": map[string]any{"name": "service_overview", "parameters": map[string]any{}}}}
	b, err := json.Marshal(req)
	require.NoError(t, err)
	_, r := post(t, h, b)
	require.Len(t, r.Choices, 1)
	require.Len(t, r.Choices[0].Message.ToolCalls, 1)
	require.Equal(t, "deployment_markers", r.Choices[0].Message.ToolCalls[0].Function.Name)
	require.JSONEq(t, `{"service":"ledger"}`, r.Choices[0].Message.ToolCalls[0].Function.Arguments)
}
