package bridgecmd

import (
	"testing"

	"agentk/cmd/agentk/internal/command"

	"github.com/stretchr/testify/require"
)

func TestFreezeScope(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		all  bool
		args []string
		want string
		bad  bool
	}{
		{name: "one service", args: []string{"shop-api"}, want: "shop-api"},
		{name: "every service", all: true, want: "_global"},
		{name: "both", all: true, args: []string{"shop-api"}, bad: true},
		{name: "neither", bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := freezeScope(tc.all, tc.args)
			if tc.bad {
				require.ErrorIs(t, err, command.ErrUsage)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
