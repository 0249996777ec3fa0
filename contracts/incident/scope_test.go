package incident

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSandboxScope(t *testing.T) {
	rel := Releases{Services: map[string][]ReleaseEntry{"shop-api": nil, "payments-api": nil, "search-api": nil}}
	for _, tc := range []struct {
		name string
		meta []string
		want []string
	}{
		{"default: every service in releases.yaml, sorted", nil, []string{"payments-api", "search-api", "shop-api"}},
		{"sandbox_services when given", []string{"shop-api"}, []string{"shop-api"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inc := &Incident{Meta: Meta{SandboxServices: tc.meta}, Releases: rel}
			require.Equal(t, tc.want, inc.SandboxScope())
		})
	}
}
