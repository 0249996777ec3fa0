package chaos

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzWebhookPipeline posts generated webhooks to the whole pipeline (the
// seven services as `agentk up` runs them, on one embedded NATS shared by
// every input) and after each one asserts what issue 19 asks: the answer is
// a 2xx or a 4xx, never a 5xx; every service is still ready and was never
// restarted; and every alert it accepted has a state in the incident index.
// Seeds: every hostile kind of the soak and a valid alert (committed seeds
// under testdata/fuzz/FuzzWebhookPipeline add mutations found by fuzzing).
// Run longer with: go test ./chaos -run XXX -fuzz FuzzWebhookPipeline -fuzztime 60s
func FuzzWebhookPipeline(f *testing.F) {
	if testing.Short() {
		f.Skip("runs the whole pipeline")
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	w := newWorld(ctx, f)
	now := time.Now()
	for i := range hostileKinds {
		_, bodies := hostile(i, now)
		for _, b := range bodies {
			if len(b) < 64<<10 { // the fuzzer's inputs stay small; the soak sends the big ones
				f.Add(b)
			}
		}
	}
	f.Add(valid(w.inc.AlertJSON, 0))
	f.Fuzz(func(t *testing.T, body []byte) {
		w.tb = t
		defer func() { w.tb = f }()
		pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
		defer pcancel()
		status, resp := w.post(pctx, body)
		require.Less(t, status, 500, "a webhook got a %d: %s", status, resp)
		if status/100 == 2 {
			var fl filed
			require.NoError(t, json.Unmarshal(resp, &fl))
			for _, a := range fl.Alerts {
				if outcomesWithRecord[a.Outcome] {
					st := w.stateOf(pctx, a.IncidentID)
					require.True(t, knownStates[st], "accepted %s (%s) has no state: %q", a.IncidentID, a.Outcome, st)
				}
			}
		}
		require.Empty(t, w.stopped(), "a service stopped")
	})
}
