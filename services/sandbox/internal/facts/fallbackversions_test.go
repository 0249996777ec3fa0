package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestFallbackVersionKey: a service's versions are read from a fallback key
// only when no entry span names service.version, from the first of
// faas.version and container.image.tag that names a value; the series by
// that key then read as versions (VersionCounts), and raw spans that name
// no service.version take its value (KeyAsVersion).
func TestFallbackVersionKey(t *testing.T) {
	named := response(t, ser{labels: labels("service.version", "2.0.0"), values: flat(0, 5, 10)})
	none := response(t)
	tags := response(t, ser{labels: labels("container.image.tag", "2.13.1"), values: flat(0, 3, 10)},
		ser{labels: labels("container.image.tag", "2.14.0"), values: flat(3, 5, 10)})
	faas := response(t, ser{labels: labels("faas.version", "41"), values: flat(0, 3, 10)},
		ser{labels: labels("faas.version", "42"), values: flat(3, 5, 10)})
	for _, tc := range []struct {
		name      string
		versions  signoz.Response
		fallbacks []signoz.Response
		want      string
	}{
		{"no service.version, tags", none, []signoz.Response{none, tags}, "container.image.tag"},
		{"no service.version, faas.version", none, []signoz.Response{faas, none}, "faas.version"},
		{"no service.version, both: faas.version first", none, []signoz.Response{faas, tags}, "faas.version"},
		{"service.version named: a sidecar's tag is no version", named, []signoz.Response{none, tags}, ""},
		{"service.version named: the platform's version is not read", named, []signoz.Response{faas, none}, ""},
		{"neither", none, []signoz.Response{none, none}, ""},
		{"a refused or missing fallback query", none, []signoz.Response{faas}, "faas.version"},
		{"no fallback answered", none, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, facts.FallbackVersionKey(tc.versions, tc.fallbacks))
		})
	}
	for _, resp := range []signoz.Response{tags, faas} {
		counts, err := facts.VersionCounts(resp)
		require.NoError(t, err)
		require.Len(t, counts, 2)
	}
	counts, _ := facts.VersionCounts(faas)
	require.Equal(t, 10.0, counts["42"][at(3).UnixMilli()])
}

// TestKeyAsVersion: raw spans that name no service.version take the
// fallback key's value as one; those that name one keep it.
func TestKeyAsVersion(t *testing.T) {
	rows := []signoz.RawRow{
		{Data: map[string]any{"resources_string": map[string]any{"container.image.tag": "2.14.0", "faas.version": "42"}}},
		{Data: map[string]any{"service.version": "1.0.0", "container.image.tag": "9.9.9", "faas.version": "7"}},
		{Data: map[string]any{"name": "no key"}},
	}
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{"container.image.tag", []string{"2.14.0", "1.0.0", ""}},
		{"faas.version", []string{"42", "1.0.0", ""}},
		{"", []string{"", "1.0.0", ""}},
	} {
		t.Run(tc.key, func(t *testing.T) {
			got := facts.KeyAsVersion(rows, tc.key)
			for i, w := range tc.want {
				require.Equal(t, w, facts.ResourceValue(got[i].Data, "service.version"), i)
			}
			require.Equal(t, "", facts.ResourceValue(rows[0].Data, "service.version"), "rows are not changed")
		})
	}
}
