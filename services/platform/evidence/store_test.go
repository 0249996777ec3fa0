package evidence_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"agentk/platform/evidence"
)

// electing is a bucket whose stream has no leader for its first n writes:
// each fails as an election does to a client; stored says whether the
// write was applied all the same (its answer was lost with the leader).
type electing struct {
	bucket
	n, calls int
	stored   bool
}

func (b *electing) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	b.calls++
	if b.calls <= b.n {
		if b.stored {
			b.vals[key] = value
		}
		return 0, nats.ErrNoResponders
	}
	return b.bucket.Create(ctx, key, value, opts...)
}

// TestStoreWaitsOutAnElection is issue 36's partitioned investigation: the
// sandbox's evidence write found the evidence stream without a leader,
// the tool call failed, and the incomplete investigation could never
// approve a right rollback. A write failing as an election does is retried
// until the stream answers; one applied whose answer was lost is found on
// the next attempt, which is success; a stream that never answers is
// ErrStore once the context ends.
func TestStoreWaitsOutAnElection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	env := f.seal(t, f.sandbox, evidenceOf("ev-1", 0))
	cases := []struct {
		name    string
		n       int
		stored  bool
		wantErr bool
	}{
		{name: "leader elected after three attempts", n: 3},
		{name: "first write applied, its answer lost", n: 1, stored: true},
		{name: "no leader for good", n: 1 << 30, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				b := &electing{bucket: bucket{vals: map[string][]byte{}}, n: tc.n, stored: tc.stored}
				ref, err := evidence.Store(context.Background(), b, "ev-1", env)
				if tc.wantErr {
					require.ErrorIs(t, err, evidence.ErrStore)
					require.ErrorIs(t, err, context.DeadlineExceeded)
					return
				}
				require.NoError(t, err)
				require.Equal(t, env.Marshal(), b.vals[ref.Digest])
			})
		})
	}
}
