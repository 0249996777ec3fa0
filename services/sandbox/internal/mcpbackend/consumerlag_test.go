package mcpbackend_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/platform/links"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/config"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// TestConsumerLagOnBothRoutes: the overview of a queue consumer
// (e2e/incidents-mesh's mailer) asks its consumer-lag query, a raw builder
// query over the messaging spans of its destinations, through the official
// server's signoz_execute_builder_query (arguments checked against its
// published schema, limit and order explicit so the server fills in
// nothing) and reads the same bodies, so the same evidence hash and the same
// fact, as on the direct route.
func TestConsumerLagOnBothRoutes(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load(filepath.Join("..", "..", "..", "..", "e2e", "incidents-mesh", "mesh-mailer-lag-campaign-flood"))
	require.NoError(t, err)
	sig := fakeSigNoz(t, inc)
	direct := &signoz.Client{BaseURL: sig.URL, APIKey: key, HTTP: sig.Client()}
	mc := httpBackend(t, sig, nil)
	var a struct {
		Alerts []struct {
			StartsAt time.Time `json:"startsAt"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &a))
	startsAt := a.Alerts[0].StartsAt
	lim := tools.DefaultLimits(config.DefaultExclude)
	c, err := tools.Validate(contracts.ToolServiceOverview, json.RawMessage(`{"service":"mailer"}`), startsAt, startsAt.Add(15*time.Minute), lim)
	require.NoError(t, err)

	var outs [2]tools.Output
	var names [2][]string
	var bodies [2][][]byte
	for i, query := range []func(context.Context, signoz.QueryRangeRequest) (signoz.Result, error){direct.QueryRange, mc.QueryRange} {
		p := tools.PlanCall(c, links.DefaultBaseURL, lim)
		var resps []signoz.Response
		for stage, qs := 0, p.Queries; len(qs) > 0; stage++ {
			for _, q := range qs {
				res, err := query(context.Background(), q.Request)
				if err != nil && q.Optional && errors.Is(err, signoz.ErrAPI) {
					res, err = signoz.Result{Response: signoz.Response{Refused: err.Error()}}, nil
				}
				require.NoError(t, err, q.Name)
				resps, names[i], bodies[i] = append(resps, res.Response), append(names[i], q.Name), append(bodies[i], res.Body)
			}
			qs = nil
			if p.Then != nil && stage < tools.MaxStages {
				qs, err = p.Then(resps)
				require.NoError(t, err)
			}
		}
		outs[i], err = tools.Build(c, resps, lim, compact.DefaultLimits)
		require.NoError(t, err)
	}
	require.Contains(t, names[1], "consumer_lag")
	require.Equal(t, names[0], names[1])
	for i := range bodies[0] {
		require.Equal(t, string(bodies[0][i]), string(bodies[1][i]), names[0][i])
	}
	require.NotNil(t, outs[1].Facts.ConsumerLag)
	require.Equal(t, outs[0].Facts.ConsumerLag, outs[1].Facts.ConsumerLag)
	require.Equal(t, outs[0].Compact, outs[1].Compact)
}
