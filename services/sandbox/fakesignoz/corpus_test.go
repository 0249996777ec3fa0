package fakesignoz

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"agentk/contracts/incident"
	"github.com/stretchr/testify/require"
)

// TestServesTheE2ECorpus loads every recorded incident the e2e suite ships
// and checks that the fake finds each one's deployment-marker spans through
// the query the sandbox relies on.
func TestServesTheE2ECorpus(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "..", "e2e", "incidents", "*", "incident.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs, "the e2e corpus is part of the repository: e2e/incidents/*/incident.yaml")
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			// An incident that does not load fails: a skip here once hid a
			// broken incident from every test that replays the corpus.
			inc, err := incident.Load(dir)
			require.NoError(t, err, "incident %s does not load", filepath.Base(dir))
			markers := 0
			for _, s := range inc.Spans {
				if s.Name == "deployment.marker" && s.Service() == inc.Meta.Service {
					markers++
				}
			}
			ts := httptest.NewServer(New(inc, Options{APIKey: testKey}))
			t.Cleanup(ts.Close)
			end := inc.Meta.Now.UnixMilli() + 1
			start := inc.Meta.Now.Add(-24 * 3600e9).UnixMilli()
			body := []byte(fmt.Sprintf(`{"schemaVersion":"v1","start":%d,"end":%d,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","filter":{"expression":"service.name = '%s' AND name = 'deployment.marker'"},"aggregations":[{"expression":"count()"}]}}]}}`,
				start, end, inc.Meta.Service))
			status, got, _ := do(t, ts, http.MethodPost, "/api/v5/query_range", keyHeaders(), body)
			require.Equal(t, http.StatusOK, status, "%s", got)
			_, results := decodeQueryRangeResponse(t, got)
			var sd sigScalarData
			decodeStrict(t, results[0], &sd)
			require.Equal(t, [][]any{{float64(markers)}}, sd.Data)
		})
	}
}
