package facts_test

import (
	"testing"
	"unicode/utf8"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

func TestSignature(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", "(no status message)"},
		{"  timeout after 3012 ms  ", "timeout after # ms"},
		{"request 9f2c4e1a7b3d failed", "request # failed"},
		{"nil pointer at 0x4a3f2c", "nil pointer at #"},
		{"connection reset by peer", "connection reset by peer"},
		{"dial tcp 10.0.3.7:5432: connect: connection refused", "dial tcp #.#.#.#:#: connect: connection refused"},
	} {
		require.Equal(t, tc.want, facts.Signature(tc.in), tc.in)
	}
}

// FuzzSignature: a status message is outside input; its signature never
// grows past 120 bytes, and folding it again changes nothing.
func FuzzSignature(f *testing.F) {
	for _, s := range []string{"", "timeout after 3012 ms", "0xdeadbeef", "panic: index 7 out of range", "ü 12 ab34cd56ef"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		s := facts.Signature(msg)
		require.LessOrEqual(t, len(s), 120)
		require.NotEmpty(t, s)
		if utf8.ValidString(s) {
			require.Equal(t, s, facts.Signature(s))
		}
	})
}

// TestRunning: the running release is the version that first served
// latest among those serving at least RunningShare of the entry spans
// since the onset (minute 50); a canary beside its predecessor is it.
func TestRunning(t *testing.T) {
	t.Parallel()
	counts := func(vs map[string]map[int]float64) map[string]map[int64]float64 {
		out := map[string]map[int64]float64{}
		for v, m := range vs {
			out[v] = map[int64]float64{}
			for i, n := range m {
				out[v][at(i).UnixMilli()] = n
			}
		}
		return out
	}
	tests := []struct {
		name    string
		counts  map[string]map[int]float64
		want    string
		first   int
		running bool
	}{
		{"v2 replaced v1 at minute 45", map[string]map[int]float64{"v1": flat(0, 45, 30), "v2": flat(45, 60, 30)}, "v2", 45, true},
		{"a 45% canary beside v1 is the running release", map[string]map[int]float64{"v1": flat(0, 60, 16), "v2": flat(47, 60, 14)}, "v2", 47, true},
		{"a canary under RunningShare is not", map[string]map[int]float64{"v1": flat(0, 60, 30), "v2": flat(47, 60, 5)}, "v1", 0, true},
		{"a version that stopped before the onset is not", map[string]map[int]float64{"v1": flat(0, 60, 30), "v3": flat(40, 45, 30)}, "v1", 0, true},
		{"same first minute: the one that served more", map[string]map[int]float64{"a": flat(45, 60, 10), "b": flat(45, 60, 20)}, "b", 45, true},
		{"no entry span since the onset", map[string]map[int]float64{"v1": flat(0, 45, 30)}, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, first, ok := facts.Running(counts(tt.counts), at(50).UnixMilli())
			require.Equal(t, tt.running, ok)
			require.Equal(t, tt.want, v)
			if ok {
				require.Equal(t, at(tt.first).UnixMilli(), first)
			}
		})
	}
}

// TestErrorsBySignature: error spans per minute by version and folded
// status message; series without a version are dropped.
func TestErrorsBySignature(t *testing.T) {
	t.Parallel()
	resp := response(t,
		ser{labels("service.version", "v2", "status_message", "timeout after 3012 ms"), 0, map[int]float64{50: 2}},
		ser{labels("service.version", "v1"), 0, map[int]float64{10: 1}},
		ser{labels("status_message", "lost"), 0, map[int]float64{51: 9}},
		ser{labels("service.version", "v2", "status_message", "x"), 1, map[int]float64{52: 4}},
	)
	got, err := facts.ErrorsBySignature(resp)
	require.NoError(t, err)
	require.ElementsMatch(t, []facts.VersionErrors{
		{Version: "v2", Signature: "timeout after # ms", TS: at(50).UnixMilli(), N: 2},
		{Version: "v1", Signature: facts.NoMessage, TS: at(10).UnixMilli(), N: 1},
	}, got)
	_, err = facts.ErrorsBySignature(rawResponse())
	require.ErrorIs(t, err, facts.ErrBadResponse)
}

// TestReleaseErrors: the running version's requests and errors since the
// onset (minute 50), its errors by signature against the history before it
// first served, and the other versions' requests and share of the new
// failure.
func TestReleaseErrors(t *testing.T) {
	t.Parallel()
	const panicMsg = "panic: runtime error: index 7 out of range [with length 3] at 0x4a3f2c"
	const panicSig = "panic: runtime error: index # out of range [with length #] at #"
	errs := func(version, msg string, m map[int]float64) ser {
		return ser{labels("service.version", version, "status_message", msg), 0, m}
	}
	// v1 served minutes 0-44 with a background of "connection reset by peer".
	history := []ser{errs("v1", "connection reset by peer", flat(0, 45, 1))}
	tests := []struct {
		name     string
		versions []ser
		errs     []ser
		want     *contracts.ReleaseErrors
	}{
		{"a release that panics: a new failure on v2 only",
			[]ser{{labels("service.version", "v1"), 0, flat(0, 45, 30)}, {labels("service.version", "v2"), 0, flat(45, 60, 30)}},
			append(history, errs("v2", "connection reset by peer", flat(45, 60, 1)), errs("v2", panicMsg, flat(50, 60, 12))),
			&contracts.ReleaseErrors{Version: "v2", FirstSeen: at(45), HistoryMinutes: 45, HistoryErrors: 45, Requests: 300, Errors: 130,
				NewSignature: panicSig, NewErrors: 120}},
		{"more of the errors v1 always had: nothing new",
			[]ser{{labels("service.version", "v1"), 0, flat(0, 45, 30)}, {labels("service.version", "v2"), 0, flat(45, 60, 30)}},
			append(history, errs("v2", "connection reset by peer", flat(50, 60, 9))),
			&contracts.ReleaseErrors{Version: "v2", FirstSeen: at(45), HistoryMinutes: 45, HistoryErrors: 45, Requests: 300, Errors: 90}},
		{"v1 and v2 fail alike: shared by the other version",
			[]ser{{labels("service.version", "v1"), 0, flat(0, 60, 15)}, {labels("service.version", "v2"), 0, flat(45, 60, 15)}},
			append(history, errs("v2", panicMsg, flat(50, 60, 6)), errs("v1", panicMsg, flat(50, 60, 5))),
			&contracts.ReleaseErrors{Version: "v2", FirstSeen: at(45), HistoryMinutes: 45, HistoryErrors: 45, Requests: 150, Errors: 60,
				NewSignature: panicSig, NewErrors: 60, OtherRequests: 150, OtherNewErrors: 50}},
		{"the most frequent new signature; ties by name",
			[]ser{{labels("service.version", "v1"), 0, flat(0, 45, 30)}, {labels("service.version", "v2"), 0, flat(45, 60, 30)}},
			append(history, errs("v2", "b failed", flat(50, 60, 2)), errs("v2", "a failed", flat(50, 60, 2)), errs("v2", "c failed", flat(50, 60, 1))),
			&contracts.ReleaseErrors{Version: "v2", FirstSeen: at(45), HistoryMinutes: 45, HistoryErrors: 45, Requests: 300, Errors: 50,
				NewSignature: "a failed", NewErrors: 20}},
		{"errors before the onset are neither history nor since",
			[]ser{{labels("service.version", "v1"), 0, flat(0, 45, 30)}, {labels("service.version", "v2"), 0, flat(45, 60, 30)}},
			append(history, errs("v2", panicMsg, flat(46, 50, 3))),
			&contracts.ReleaseErrors{Version: "v2", FirstSeen: at(45), HistoryMinutes: 45, HistoryErrors: 45, Requests: 300}},
		{"no entry span carries a version since the onset",
			[]ser{{labels("service.version", "v1"), 0, flat(0, 45, 30)}}, history, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := facts.ReleaseErrors(response(t, tt.versions...), response(t, tt.errs...), at(50))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
	_, err := facts.ReleaseErrors(rawResponse(), response(t), at(50))
	require.ErrorIs(t, err, facts.ErrBadResponse)
	_, err = facts.ReleaseErrors(response(t), rawResponse(), at(50))
	require.ErrorIs(t, err, facts.ErrBadResponse)
}

func TestMinuteTotals(t *testing.T) {
	t.Parallel()
	counts := map[string]map[int64]float64{
		"1.2.0": {60000: 3, 120000: 4},
		"1.3.0": {120000: 5, 180000: 6},
		"":      {60000: 1},
	}
	for _, tc := range []struct {
		name   string
		except []string
		want   map[int64]float64
	}{
		{"every version, the unversioned too", nil, map[int64]float64{60000: 4, 120000: 9, 180000: 6}},
		{"all but the running version", []string{"1.3.0"}, map[int64]float64{60000: 4, 120000: 4}},
		{"all but the unversioned", []string{""}, map[int64]float64{60000: 3, 120000: 9, 180000: 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, facts.MinuteTotals(counts, tc.except...))
		})
	}
}
