package config_test

import (
	"testing"

	"agentk/platform/config"

	"github.com/stretchr/testify/require"
)

func TestSigNozLinkBase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		env            map[string]string
		want, wantName string
		bad            bool
	}{
		{name: "nothing set: SigNoz's own port", want: "http://localhost:8080", wantName: "AGENTK_SIGNOZ_URL (default)"},
		{name: "only AGENTK_SIGNOZ_URL, as docs/signoz.md says", env: map[string]string{"AGENTK_SIGNOZ_URL": "http://signoz:8080/"},
			want: "http://signoz:8080", wantName: "AGENTK_SIGNOZ_URL"},
		{name: "a separate UI base wins", env: map[string]string{"AGENTK_SIGNOZ_URL": "http://signoz:8080", "AGENTK_SIGNOZ_BASE_URL": "https://signoz.example.com"},
			want: "https://signoz.example.com", wantName: "AGENTK_SIGNOZ_BASE_URL"},
		{name: "not http", env: map[string]string{"AGENTK_SIGNOZ_BASE_URL": "ftp://x"}, wantName: "AGENTK_SIGNOZ_BASE_URL", bad: true},
		{name: "credentials in the URL", env: map[string]string{"AGENTK_SIGNOZ_URL": "http://u:p@signoz:8080"}, wantName: "AGENTK_SIGNOZ_URL", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, name, err := config.SigNozLinkBase(func(k string) string { return tc.env[k] })
			require.Equal(t, tc.wantName, name)
			if tc.bad {
				require.ErrorIs(t, err, config.ErrInvalid)
				require.Contains(t, err.Error(), tc.wantName)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
