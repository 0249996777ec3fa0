package contracts

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseCatalogue(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       int
		errs       []string
	}{
		{"a list", "- {name: bad_release, description: x, deployment_class: true}\n- {name: unknown, description: y}\n", 2, nil},
		{"under classes", "classes:\n  - {name: retry_storm, deployment_class: true}\n", 1, nil},
		{"empty", "[]\n", 0, []string{"no classes"}},
		{"bad name and duplicate and unknown deployment-class", "- {name: Bad-Name}\n- {name: x}\n- {name: x}\n- {name: unknown, deployment_class: true}\n", 0,
			[]string{`"Bad-Name" must be lower_snake_case`, `"x" listed twice`, `"unknown" can never be deployment-class`}},
		{"unknown field", "- {name: x, deploy: true}\n", 0, []string{"catalogue"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat, err := ParseCatalogue([]byte(tc.yaml))
			if tc.errs == nil {
				require.NoError(t, err)
				require.Len(t, cat, tc.want)
				return
			}
			require.True(t, errors.Is(err, ErrCatalogue), "%v", err)
			for _, e := range tc.errs {
				require.Contains(t, err.Error(), e)
			}
		})
	}
	_, err := ParseCatalogue([]byte("- {name: bad_release, deployment_class: true}\n"))
	require.NoError(t, err)
	def := DefaultCatalogue()
	require.Len(t, def, 10)
}
