package webhook_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"agentk/contracts"
	"agentk/services/ingester/webhook"

	"github.com/stretchr/testify/require"
)

func FuzzParse(f *testing.F) {
	for _, name := range []string{"signoz-threshold.json", "signoz-test-notification.json", "signoz-nodata.json", "signoz-resolved.json", "alertmanager-prometheus.json"} {
		f.Add(load(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		alerts, err := webhook.Parse(b, received)
		if err != nil {
			require.ErrorIs(t, err, webhook.ErrInvalid)
			var fe *webhook.FieldError
			require.True(t, errors.As(err, &fe))
			require.NotEmpty(t, fe.Msg)
			return
		}
		require.NotEmpty(t, alerts)
		for _, a := range alerts {
			require.Contains(t, []string{contracts.AlertFiring, contracts.AlertResolved}, a.Status)
			require.False(t, math.IsNaN(a.BurnRate) || math.IsInf(a.BurnRate, 0))
			require.True(t, strings.HasPrefix(a.IncidentID, "inc-"))
			require.NotEmpty(t, a.Fingerprint)
			require.False(t, a.StartsAt.IsZero())
			require.False(t, a.EndsAt != nil && a.Status == contracts.AlertFiring)
			_, err := json.Marshal(a)
			require.NoError(t, err, "every parsed alert must encode for the bus")
		}
	})
}
