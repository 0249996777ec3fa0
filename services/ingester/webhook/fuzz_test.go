package webhook_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

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
			b, err := json.Marshal(a)
			require.NoError(t, err, "every parsed alert must encode for the bus")
			require.LessOrEqual(t, len(b), webhook.MaxAlertBytes, "every parsed alert fits the bus")
			require.LessOrEqual(t, len(a.Service), webhook.MaxIdentityBytes)
			require.LessOrEqual(t, len(a.AlertName), webhook.MaxIdentityBytes)
			require.LessOrEqual(t, len(a.Labels), webhook.MaxLabels)
			require.False(t, a.StartsAt.Before(time.Unix(0, 0)), "startsAt from the epoch on")
			require.False(t, a.StartsAt.After(received.Add(webhook.MaxClockSkew)), "startsAt not in the future")
			for k, v := range a.Labels {
				require.True(t, utf8.ValidString(k) && utf8.ValidString(v))
				require.False(t, strings.ContainsFunc(k+v, unsafeRune), "no control character in labels: %q=%q", k, v)
			}
		}
	})
}

// unsafeRune is what no stored label may contain: control characters and
// the bidirectional overrides.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
