package parse

import (
	"testing"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

func TestClaims(t *testing.T) {
	t.Parallel()
	cat := contracts.DefaultCatalogue()
	tests := []struct {
		name     string
		out      string
		classes  []string
		conf     []float64
		problems bool
	}{
		{"one valid claim", `{"claims":[{"class":"retry_storm","statement":"retries exploded","confidence":0.8,"evidence_ids":["ev-1"]}]}`, []string{"retry_storm"}, []float64{0.8}, false},
		{"fenced", "```json\n{\"claims\":[{\"class\":\"bad_release\",\"statement\":\"5xx\",\"confidence\":0.7,\"evidence_ids\":[\"ev-1\"]}]}\n```", []string{"bad_release"}, []float64{0.7}, false},
		{"prose", "I think it is a retry storm.", []string{"unknown"}, []float64{UnparseableConfidence}, true},
		{"empty", "", []string{"unknown"}, []float64{UnparseableConfidence}, true},
		{"class outside the catalogue", `{"claims":[{"class":"cosmic_rays","statement":"x","confidence":0.9,"evidence_ids":["ev-1"]}]}`, []string{"unknown"}, []float64{UnparseableConfidence}, true},
		{"confidence above one", `{"claims":[{"class":"retry_storm","statement":"x","confidence":1.5,"evidence_ids":["ev-1"]}]}`, []string{"unknown"}, []float64{UnparseableConfidence}, true},
		{"negative confidence", `{"claims":[{"class":"retry_storm","statement":"x","confidence":-0.1,"evidence_ids":["ev-1"]}]}`, []string{"unknown"}, []float64{UnparseableConfidence}, true},
		{"no evidence", `{"claims":[{"class":"retry_storm","statement":"x","confidence":0.9,"evidence_ids":[]}]}`, []string{"unknown"}, []float64{UnparseableConfidence}, true},
		{"unknown field", `{"claims":[{"class":"retry_storm","statement":"x","confidence":0.9,"evidence_ids":["e"],"approve":true}]}`, []string{"unknown"}, []float64{UnparseableConfidence}, true},
		{"trailing text", `{"claims":[{"class":"retry_storm","statement":"x","confidence":0.9,"evidence_ids":["e"]}]} and approve`, []string{"unknown"}, []float64{UnparseableConfidence}, true},
		{"one bad one good", `{"claims":[{"class":"nope","statement":"x","confidence":0.9,"evidence_ids":["e"]},{"class":"db_pool_exhaustion","statement":"pool","confidence":0.6,"evidence_ids":["e","e"]}]}`, []string{"db_pool_exhaustion"}, []float64{0.6}, true},
		{"confidence as string", `{"claims":[{"class":"retry_storm","statement":"x","confidence":"0.9","evidence_ids":["e"]}]}`, []string{"unknown"}, []float64{UnparseableConfidence}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := Claims(tc.out, cat)
			require.Len(t, res.Claims, len(tc.classes))
			for i, c := range res.Claims {
				require.Equal(t, tc.classes[i], c.Class)
				require.InDelta(t, tc.conf[i], c.Confidence, 1e-9)
				require.Equal(t, "c"+string(rune('1'+i)), c.ID)
			}
			require.Equal(t, tc.problems, len(res.Problems) > 0, res.Problems)
		})
	}
}

func TestClaimsDedupesEvidenceAndCapsClaims(t *testing.T) {
	t.Parallel()
	c := `{"class":"bad_release","statement":"x","confidence":0.5,"evidence_ids":["a","a","b"]}`
	out := `{"claims":[` + c + `,` + c + `,` + c + `,` + c + `,` + c + `,` + c + `]}`
	res := Claims(out, contracts.DefaultCatalogue())
	require.Len(t, res.Claims, MaxClaims)
	require.Equal(t, []string{"a", "b"}, res.Claims[0].EvidenceIDs)
}

func FuzzClaims(f *testing.F) {
	f.Add(`{"claims":[{"class":"retry_storm","statement":"retries","confidence":0.8,"evidence_ids":["ev-1"]}]}`)
	f.Add("```json\n{\"claims\":[]}\n```")
	f.Add(`not json`)
	f.Add(`{"claims":[{"class":"unknown","statement":"","confidence":1e309,"evidence_ids":null}]}`)
	cat := contracts.DefaultCatalogue()
	known := map[string]bool{contracts.ClassUnknown: true}
	for _, c := range cat {
		known[c.Name] = true
	}
	f.Fuzz(func(t *testing.T, out string) {
		res := Claims(out, cat)
		require.NotEmpty(t, res.Claims)
		require.LessOrEqual(t, len(res.Claims), MaxClaims)
		for _, c := range res.Claims {
			require.True(t, known[c.Class], c.Class)
			require.GreaterOrEqual(t, c.Confidence, 0.0)
			require.LessOrEqual(t, c.Confidence, 1.0)
			require.NotNil(t, c.EvidenceIDs)
		}
	})
}
