package facts_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// TestWithoutRedeliveries: the deliveries flagged redelivered since the
// onset leave every count since the onset, of the running version and the
// others; before the onset and with none redelivered, nothing changes.
// Kills mutant sandbox.redeliveries.
func TestWithoutRedeliveries(t *testing.T) {
	on := at(40).UnixMilli()
	r := &contracts.ReleaseErrors{Version: "4.2.0", FirstSeen: at(38), Requests: 3186, Errors: 3115, NewSignature: "no function clause", NewErrors: 3115,
		OtherRequests: 94, OtherNewErrors: 82, OtherVersions: &contracts.OtherVersionErrors{Requests: 94, Errors: 82, HistoryRequests: 531}}
	counts := map[string]map[int64]float64{
		"4.2.0": {at(41).UnixMilli(): 30, at(39).UnixMilli(): 7},
		"4.1.3": {at(40).UnixMilli(): 59, at(30).UnixMilli(): 2},
	}
	rows := []facts.VersionErrors{
		{Version: "4.2.0", Signature: "no function clause", TS: at(41).UnixMilli(), N: 23},
		{Version: "4.1.3", Signature: "no function clause", TS: at(40).UnixMilli(), N: 59},
		{Version: "4.1.3", Signature: "timeout", TS: at(30).UnixMilli(), N: 2},
	}
	got := facts.WithoutRedeliveries(r, counts, rows, on)
	require.Equal(t, int64(89), got.Redelivered)
	require.Equal(t, []int64{3156, 3092, 3092}, []int64{got.Requests, got.Errors, got.NewErrors})
	require.Equal(t, []int64{35, 23}, []int64{got.OtherRequests, got.OtherNewErrors})
	require.Equal(t, contracts.OtherVersionErrors{Requests: 35, Errors: 23, HistoryRequests: 531}, *got.OtherVersions)
	require.Equal(t, int64(94), r.OtherVersions.Requests, "the input is left as it was")

	before := map[string]map[int64]float64{"4.1.3": {at(30).UnixMilli(): 2}}
	require.Same(t, r, facts.WithoutRedeliveries(r, before, rows[2:], on), "redelivered only before the onset")
	require.Nil(t, facts.WithoutRedeliveries(nil, counts, rows, on))
}
