package facts

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStatusRejected: which spans count as a server's rejection. Only a
// server span, without an error already, answering one of RejectCodes (as a
// number, its text or its name); never CANCELLED (the caller walked away)
// and never a client span (the caller's view: its own deadline writes
// DEADLINE_EXCEEDED or CANCELLED without the callee answering anything).
func TestStatusRejected(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		d    map[string]any
		want bool
	}{
		{"server FAILED_PRECONDITION, numeric", map[string]any{"kind_string": "Server", "has_error": false, "rpc.grpc.status_code": 9.0}, true},
		{"server FAILED_PRECONDITION, in the typed map", map[string]any{"kind_string": "Server", "attributes_number": map[string]any{"rpc.grpc.status_code": 9.0}}, true},
		{"server code as text", map[string]any{"kind_string": "Server", "rpc.grpc.status_code": "9"}, true},
		{"server, newer conventions' name", map[string]any{"kind_string": "Server", "rpc.response.status_code": "FAILED_PRECONDITION"}, true},
		{"server NOT_FOUND by kind number", map[string]any{"kind": "2", "rpc.grpc.status_code": 5.0}, true},
		{"server RESOURCE_EXHAUSTED", map[string]any{"kind_string": "Server", "rpc.response.status_code": "RESOURCE_EXHAUSTED"}, true},
		{"server OK", map[string]any{"kind_string": "Server", "rpc.grpc.status_code": 0.0}, false},
		{"server CANCELLED: the caller walked away", map[string]any{"kind_string": "Server", "rpc.grpc.status_code": 1.0}, false},
		{"server CANCELLED, newer name", map[string]any{"kind_string": "Server", "rpc.response.status_code": "CANCELLED"}, false},
		{"server INTERNAL is an error span already", map[string]any{"kind_string": "Server", "has_error": true, "rpc.grpc.status_code": 13.0}, false},
		{"server rejection with an error: counted by the errors", map[string]any{"kind_string": "Server", "has_error": true, "rpc.grpc.status_code": 9.0}, false},
		{"client FAILED_PRECONDITION: the caller's span", map[string]any{"kind_string": "Client", "has_error": true, "rpc.grpc.status_code": 9.0}, false},
		{"client DEADLINE_EXCEEDED: the caller's own deadline", map[string]any{"kind_string": "Client", "has_error": true, "rpc.grpc.status_code": 4.0}, false},
		{"client without error flag", map[string]any{"kind_string": "Client", "rpc.grpc.status_code": 9.0}, false},
		{"HTTP 409 on a server span", map[string]any{"kind_string": "Server", "http.response.status_code": 409.0}, false},
		{"no status at all", map[string]any{"kind_string": "Server"}, false},
	} {
		require.Equal(t, tc.want, StatusRejected(tc.d), tc.name)
	}
}

// amendOps are three operations of a gRPC service; the third, thin one
// (3 sampled calls a minute) answers FAILED_PRECONDITION to failRate of its
// calls from failAt. Its error series stays empty (the conventions leave a
// server span's status unset); the rejections are returned apart.
func amendOps(r *rand.Rand, failAt time.Time, failRate float64) (map[string][]Minute, *Rejections) {
	const op = "pkg.Manifests/Amend Server"
	ops := map[string][]Minute{
		"pkg.Manifests/Get Server":  opSynth{perMinute: 30, errRate: 0.002, p95: 10}.minutes(r),
		"pkg.Manifests/List Server": opSynth{perMinute: 10, errRate: 0.002, p95: 12}.minutes(r),
	}
	amend := opSynth{perMinute: 3, errRate: 0, p95: 11, failAt: failAt, failRate: failRate}.minutes(r)
	rj := &Rejections{ByOp: map[string][]Minute{}, OpRows: map[string][]VersionErrors{}}
	plain := make([]Minute, len(amend))
	for i, m := range amend {
		plain[i] = m
		plain[i].Errors = 0
		if m.Errors > 0 {
			rj.ByOp[op] = append(rj.ByOp[op], Minute{At: m.At, Errors: m.Errors})
			row := VersionErrors{Version: "cfg.13", Signature: "gRPC FAILED_PRECONDITION", TS: m.At.UnixMilli(), N: m.Errors}
			rj.Rows, rj.OpRows[op] = append(rj.Rows, row), append(rj.OpRows[op], row)
		}
	}
	ops[op] = plain
	return ops, rj
}

// TestStatusRejectionsPlaceTheOnset: one RPC of three starts answering
// FAILED_PRECONDITION (server spans unset, has_error false) at failAt. Its
// error series shows nothing, so no departure; with its rejections counted
// the operation departs near failAt, its onset names the code (the gate
// lets only a bad release or a configuration regression lean on it), and
// the service's onset is placed. Without the counting (mutant
// sandbox.status_rejections) no onset is found. A quiet twin whose
// rejections stay at their background rate places none.
func TestStatusRejectionsPlaceTheOnset(t *testing.T) {
	t.Parallel()
	failAt := synthEnd.Add(-19 * time.Minute)
	for seed := uint64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		ops, rj := amendOps(r, failAt, 0.7)
		require.Empty(t, OperationDeparturesBy(ops, nil, nil, synthEnd, DefaultMargins), "seed %d: no error at all", seed)
		deps := OperationDeparturesWithStatus(ops, rj, map[string]string{"pkg.Manifests/Amend Server": "name = 'pkg.Manifests/Amend'"}, nil, synthEnd, DefaultMargins)
		require.NotEmpty(t, deps, "seed %d", seed)
		d := deps[0]
		require.Equal(t, "pkg.Manifests/Amend Server", d.Op(), "seed %d", seed)
		require.Equal(t, "gRPC FAILED_PRECONDITION", d.Onset().Status, "seed %d", seed)
		on := EarliestOnset(FindOnset(sumMinutes(ops), synthEnd, DefaultMargins), deps)
		require.NotNil(t, on.At, "seed %d", seed)
		require.Equal(t, "gRPC FAILED_PRECONDITION", on.Status, "seed %d", seed)
		require.False(t, on.At.Before(failAt.Add(-5*time.Minute)), "seed %d: onset %s", seed, on.At)
		require.False(t, on.At.After(failAt.Add(3*time.Minute)), "seed %d: onset %s", seed, on.At)
	}
	// The same rejections at a steady background share from the start (a
	// client-fault code some callers always get): no departure.
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 10))
		ops, rj := amendOps(r, synthEnd.Add(-4*time.Hour), 0.1)
		require.Empty(t, OperationDeparturesWithStatus(ops, rj, nil, nil, synthEnd, DefaultMargins), "seed %d", seed)
	}
}

// TestStatusMarkOnlyWhereErrorsDoNotDepart: an operation whose own errors
// depart as early carries no Status (its onset rests on errors, any class
// may lean on it), even with rejections beside them.
func TestStatusMarkOnlyWhereErrorsDoNotDepart(t *testing.T) {
	t.Parallel()
	failAt := synthEnd.Add(-19 * time.Minute)
	r := rand.New(rand.NewPCG(3, 9))
	ops, rj := amendOps(r, failAt, 0.5)
	const op = "pkg.Manifests/Amend Server"
	for i := range ops[op] {
		if !ops[op][i].At.Before(failAt) {
			// As many errors as rejections: the errors alone depart.
			ops[op][i].Errors = ops[op][i].Requests
		}
	}
	deps := OperationDeparturesWithStatus(ops, rj, nil, nil, synthEnd, DefaultMargins)
	require.NotEmpty(t, deps)
	require.Empty(t, deps[0].Onset().Status)
}
