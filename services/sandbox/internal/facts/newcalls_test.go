package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// A 60-minute baseline and 20 minutes since the onset, at 1 in 5 sampled
// (kf6-back-to-back-slots-warehouse-api's shape): the slot reads (old) made
// 120 kept calls in the baseline, none failed; the release's insert naming a
// column that does not exist is new.
const newCallsBase, newCallsSince = 60.0, 20.0

func oldRead(calls, errs float64) facts.PeerCall {
	return facts.PeerCall{Key: "SELECT ... FROM [DockSlots]", BaseCalls: 120, Calls: calls, Errors: errs}
}

func newInsert(calls, errs float64) facts.PeerCall {
	return facts.PeerCall{Key: "INSERT INTO [SlotReservations] (..., [CutoffUtc])", Calls: calls, Errors: errs}
}

func TestNewCallFailures(t *testing.T) {
	cases := []struct {
		name  string
		calls []facts.PeerCall
		want  bool
	}{
		{"the release's new statement fails, the old reads succeed as usual", []facts.PeerCall{oldRead(40, 0), newInsert(15, 15)}, true},
		{"one stray failure of an old read among twenty new ones", []facts.PeerCall{oldRead(40, 1), newInsert(25, 20)}, true},
		{"a key the running version alone sent in the baseline is new", []facts.PeerCall{oldRead(40, 0), {Key: "INSERT v2", BaseCalls: 0, Calls: 10, Errors: 10}}, true},
		{"failures mostly on old reads: a failing dependency", []facts.PeerCall{oldRead(40, 10), newInsert(15, 15)}, false},
		{"every failure on an old key, none new", []facts.PeerCall{oldRead(40, 12)}, false},
		{"too few failures to judge", []facts.PeerCall{oldRead(40, 0), newInsert(2, 2)}, false},
		{"too few old calls kept since the onset to tell (1 in 20)", []facts.PeerCall{oldRead(12, 0), newInsert(6, 6)}, false},
		{"the old reads stopped being made: no rate to vouch for them", []facts.PeerCall{{Key: "SELECT", BaseCalls: 600, Calls: 40}, newInsert(15, 15)}, false},
		{"no old key at all", []facts.PeerCall{newInsert(15, 15)}, false},
		{"no calls", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, facts.NewCallFailures(c.calls, newCallsBase, newCallsSince))
		})
	}
	require.False(t, facts.NewCallFailures([]facts.PeerCall{oldRead(40, 0), newInsert(15, 15)}, 0, newCallsSince), "no baseline minutes")
}

// TestNewCallFailuresOldCallsMustBeHealthy is the adversarial twin's
// shape: the database fails on the old reads too after the release (an
// outage coinciding with it) while the new statement's failures outnumber
// them twenty to one; it stays a failing dependency. It kills
// mutant.SandboxNewCallsOldHealthy.
func TestNewCallFailuresOldCallsMustBeHealthy(t *testing.T) {
	for name, old := range map[string]facts.PeerCall{
		"two of forty old reads fail (none in 120 before)": oldRead(40, 2),
		"old reads fail at a share no chance explains":     {Key: "SELECT", BaseCalls: 1200, Calls: 400, Errors: 20},
	} {
		t.Run(name, func(t *testing.T) {
			calls := []facts.PeerCall{old, newInsert(400, 400)}
			require.False(t, facts.NewCallFailures(calls, newCallsBase, newCallsSince))
			require.Equal(t, []string{"sql"}, facts.WithoutNewCallFailures([]string{"sql"}, map[string][]facts.PeerCall{"sql": calls}, newCallsBase, newCallsSince))
		})
	}
	healthy := []facts.PeerCall{oldRead(40, 0), newInsert(15, 15)}
	require.Equal(t, []string{"redis"}, facts.WithoutNewCallFailures([]string{"sql", "redis"}, map[string][]facts.PeerCall{"sql": healthy}, newCallsBase, newCallsSince))
}

func TestWidestKey(t *testing.T) {
	t.Parallel()
	call := func(key string, n float64) *facts.PeerCall { return &facts.PeerCall{Key: key, Calls: n} }
	order := []string{"db.query.text", "rpc.method", "http.route"}
	for _, tc := range []struct {
		name  string
		byKey map[string]map[string]*facts.PeerCall
		want  []string
	}{
		{"the key that counts most calls, its values sorted", map[string]map[string]*facts.PeerCall{
			"db.query.text": {"SELECT b": call("SELECT b", 3), "SELECT a": call("SELECT a", 2)},
			"http.route":    {"/x": call("/x", 9)},
		}, []string{"/x"}},
		{"a tie goes to the first of the order", map[string]map[string]*facts.PeerCall{
			"rpc.method":    {"Get": call("Get", 4)},
			"db.query.text": {"SELECT b": call("SELECT b", 3), "SELECT a": call("SELECT a", 1)},
		}, []string{"SELECT a", "SELECT b"}},
		{"no calls", map[string]map[string]*facts.PeerCall{"rpc.method": {}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range facts.WidestKey(tc.byKey, order) {
				got = append(got, c.Key)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestServedMinutes(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	var ms []facts.Minute
	for i := 0; i < 10; i++ {
		n := 5.0
		if i == 3 || i == 4 {
			n = 0 // a pause
		}
		ms = append(ms, facts.Minute{At: t0.Add(time.Duration(i) * time.Minute), Requests: n})
	}
	require.Equal(t, 8.0, facts.ServedMinutes(ms, t0, t0.Add(10*time.Minute)))
	require.Equal(t, 3.0, facts.ServedMinutes(ms, t0.Add(2*time.Minute), t0.Add(7*time.Minute)), "from inclusive, to exclusive, the pause left out")
	require.Equal(t, 2.0, facts.ServedMinutes(ms, t0.Add(8*time.Minute), t0.Add(time.Hour)), "a window past the recording counts what was served")
}
