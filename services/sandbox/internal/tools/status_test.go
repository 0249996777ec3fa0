package tools_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestRejectionsPlaceTheOnsetOnHeldout3: on e2e/incidents-heldout3's
// ho3-config-amend-rpc-manifest-svc one RPC answers FAILED_PRECONDITION
// after a configuration build; its server spans stay unset under the
// conventions (no error span anywhere in manifest-svc). The overview places
// the onset at that operation's rejections (naming the code, for the
// gate), the release comparison counts them as the running version's new
// errors, and the caller whose client spans fail on them (customs-portal)
// is propagation, not a shared cause.
func TestRejectionsPlaceTheOnsetOnHeldout3(t *testing.T) {
	inc, err := incident.Load(filepath.Join("../../../../e2e/incidents-heldout3", "ho3-config-amend-rpc-manifest-svc"))
	require.NoError(t, err)
	var a struct {
		Alerts []struct {
			StartsAt time.Time `json:"startsAt"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &a))
	h := newHarness(t, inc, a.Alerts[0].StartsAt)
	h.now = inc.Meta.Now
	f := overviewWithRule(t, h, inc.Meta.Service, "").Facts
	require.NotNil(t, f.ErrorCount)
	require.EqualValues(t, 0, *f.ErrorCount)
	require.NotNil(t, f.Onset)
	require.Equal(t, "harbourline.manifest.v1.ManifestService/AmendManifest Server", f.OnsetOperation)
	require.Equal(t, "gRPC FAILED_PRECONDITION", f.OnsetStatus)
	// The release (05:41:00, first served 05:41:02) and the first rejection
	// (05:41:11) share the onset's minute.
	require.Equal(t, "2026-12-03T05:41", f.Onset.UTC().Format("2006-01-02T15:04"))
	require.NotNil(t, f.Release)
	require.Equal(t, "gRPC FAILED_PRECONDITION", f.Release.NewSignature)
	require.GreaterOrEqual(t, f.Release.NewErrors, int64(30))
	require.NotContains(t, f.CoRegressed, "customs-portal")
}
