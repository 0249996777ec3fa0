package configcmd

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// repoRoot is the repository, from this package.
const repoRoot = "../../../.."

func TestDisagreementNamesBothValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		vals []roleValue
		want string
	}{
		{name: "agree", vals: []roleValue{{"sandbox", "http://signoz:8080"}, {"reviewer", "http://signoz:8080"}}},
		{name: "one unknown", vals: []roleValue{{"sandbox", ""}, {"reviewer", "http://signoz:8080"}}},
		{name: "issue 19: the reviewer on the default", vals: []roleValue{{"sandbox", "http://signoz:8080"}, {"reviewer", "http://localhost:8080"}},
			want: "links disagree: sandbox uses http://signoz:8080, reviewer uses http://localhost:8080"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := disagreement("links", tc.vals)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.want)
		})
	}
}

// TestLinkBasesAgreeWithOnlyTheSigNozURL: every way docs/signoz.md lets an
// operator name SigNoz gives every service the same link base.
func TestLinkBasesAgreeWithOnlyTheSigNozURL(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{
		{},
		{"AGENTK_SIGNOZ_URL": "http://signoz.internal:8080"},
		{"AGENTK_SIGNOZ_URL": "http://signoz.internal:8080", "AGENTK_SIGNOZ_BASE_URL": "https://signoz.example.com/"},
	} {
		require.NoError(t, checkLinkBases(func(k string) string { return env[k] }), "%v", env)
		var got []string
		for _, lb := range linkBases {
			b, _ := lb.base(func(k string) string { return env[k] })
			got = append(got, b)
		}
		require.Len(t, got, 2)
		require.NotEmpty(t, got[0])
	}
}
