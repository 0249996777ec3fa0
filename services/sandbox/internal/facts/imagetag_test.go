package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestImageTagVersions: a service's versions are read from its image tags
// only when no entry span names service.version and some name a tag; the
// series by tag then read as versions (VersionCounts), and raw spans that
// name no service.version take their tag (TagAsVersion).
func TestImageTagVersions(t *testing.T) {
	named := response(t, ser{labels: labels("service.version", "2.0.0"), values: flat(0, 5, 10)})
	none := response(t)
	tags := response(t, ser{labels: labels(facts.ImageTagKey, "2.13.1"), values: flat(0, 3, 10)},
		ser{labels: labels(facts.ImageTagKey, "2.14.0"), values: flat(3, 5, 10)})
	for _, tc := range []struct {
		name           string
		versions, tags signoz.Response
		want           bool
	}{
		{"no service.version, tags", none, tags, true},
		{"service.version named: a sidecar's tag is no version", named, tags, false},
		{"neither", none, none, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, facts.ImageTagVersions(tc.versions, tc.tags))
		})
	}
	counts, err := facts.VersionCounts(tags)
	require.NoError(t, err)
	require.Len(t, counts, 2)
	require.Equal(t, 10.0, counts["2.14.0"][at(3).UnixMilli()])

	rows := []signoz.RawRow{
		{Data: map[string]any{"resources_string": map[string]any{facts.ImageTagKey: "2.14.0"}}},
		{Data: map[string]any{"service.version": "1.0.0", facts.ImageTagKey: "9.9.9"}},
		{Data: map[string]any{"name": "no tag"}},
	}
	got := facts.TagAsVersion(rows)
	require.Equal(t, "2.14.0", facts.ResourceValue(got[0].Data, "service.version"))
	require.Equal(t, "1.0.0", facts.ResourceValue(got[1].Data, "service.version"))
	require.Equal(t, "", facts.ResourceValue(got[2].Data, "service.version"))
	require.Equal(t, "", facts.ResourceValue(rows[0].Data, "service.version"), "rows are not changed")
}
