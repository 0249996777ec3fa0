package contracts_test

import (
	"bytes"
	"encoding/json"
	"testing"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
)

// TestDerivedDecisionGoldenIsADecision: the derived decision's golden
// validates against agentk.decision.v1's schema (the field is additive) and
// decodes with its origin, whose alerted service is not the decision's.
func TestDerivedDecisionGoldenIsADecision(t *testing.T) {
	t.Parallel()
	raw := contracts.Golden(GoldenDerivedDecision)
	require.NotEmpty(t, raw, "golden %s: run go test ./contracts -update", GoldenDerivedDecision)
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	require.NoError(t, compileSchema(t, contracts.SubjectDecision).Validate(doc))

	var d contracts.DecisionV1
	require.NoError(t, json.Unmarshal(raw, &d))
	require.NotNil(t, d.Origin)
	require.Equal(t, "payment", d.Service)
	require.Equal(t, "shop-api", d.Origin.AlertedService)
	require.Equal(t, contracts.DerivedDecisionID(d.Origin.AlertedDecisionID, d.Service), d.DecisionID)

	// The alerted service's decision carries no origin at all.
	var alerted map[string]any
	require.NoError(t, json.Unmarshal(contracts.Golden(contracts.SubjectDecision), &alerted))
	require.NotContains(t, alerted, "origin")
}

func TestDerivedDecisionIDIsPerService(t *testing.T) {
	t.Parallel()
	a := contracts.DerivedDecisionID("decision.review.inv-1", "payment")
	require.Equal(t, "decision.review.inv-1.origin.payment", a)
	require.NotEqual(t, a, contracts.DerivedDecisionID("decision.review.inv-1", "inventory"))
	require.NotEqual(t, a, contracts.DerivedDecisionID("decision.review.inv-2", "payment"))
	require.NotEqual(t, "decision.review.inv-1", a)
}
