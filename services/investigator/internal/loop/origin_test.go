package loop_test

import (
	"context"
	"encoding/json"
	"testing"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/plan"

	"github.com/stretchr/testify/require"
)

// TestOriginEvidenceIsInTheMinimumPlan: when the alerted service's overview
// names another service as the origin of its failures, the minimum plan
// queries the origin's deployment markers and overview in its marker
// iteration (DESIGN rules 2 and 17), before any model turn; with no origin,
// or one naming the alerted service itself, the plan is the usual four calls.
func TestOriginEvidenceIsInTheMinimumPlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		origin *contracts.FailureOrigin
		extra  []string // services of the extra calls, in order
	}{
		{"a callee is the origin", &contracts.FailureOrigin{Service: "ledger", Signal: "errors", Share: 0.9}, []string{"ledger", "ledger"}},
		{"no origin", nil, nil},
		{"the alerted service itself", &contracts.FailureOrigin{Service: "shop-api", Signal: "errors", Share: 0.9}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := looptest.RetryStorm()
			ov := s[contracts.ToolServiceOverview]
			ov.Facts.Origin = tc.origin
			s[contracts.ToolServiceOverview] = ov
			sb := &looptest.Sandbox{Scenario: s, Now: looptest.Base}
			m := &scriptModel{turns: []func(loop.State) (loop.Answer, error){answer(good, 900, 60)}}
			rep, err := loop.Investigate(context.Background(), input(), deps(sb, m))
			require.NoError(t, err)
			require.True(t, rep.Completed, rep.IncompleteReason)
			require.Equal(t, plan.MinIterations+1, rep.Iterations, "the origin's calls take no iteration of their own")
			require.Len(t, sb.Calls, len(plan.Minimum)+len(tc.extra))
			// Every call ran before the model's first turn: the plan's.
			require.Len(t, m.states, 1)
			require.Len(t, m.states[0].Evidence, len(plan.Minimum)+len(tc.extra))
			var tools, services []string
			for _, c := range sb.Calls {
				var a contracts.ToolArgs
				require.NoError(t, json.Unmarshal(c.Arguments, &a))
				tools, services = append(tools, c.Tool), append(services, a.Service)
			}
			if len(tc.extra) == 0 {
				require.Equal(t, plan.Minimum, tools)
				return
			}
			require.Equal(t, []string{contracts.ToolServiceOverview, contracts.ToolDeploymentMarkers, contracts.ToolDeploymentMarkers, contracts.ToolServiceOverview,
				contracts.ToolErrorTraces, contracts.ToolErrorLogs}, tools)
			require.Equal(t, tc.extra, services[2:4])
		})
	}
}
