package executor

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// gatheringQuerier answers a query once `gather` queries are in flight at
// the same moment (or after a long while, so that a serial executor fails
// rather than hangs), notes the most it ever saw in flight, and fails the
// query named fail at once.
type gatheringQuerier struct {
	gather int
	fail   string

	mu       sync.Mutex
	inFlight int
	peak     int
	all      chan struct{}
	once     sync.Once
	canceled int
}

var errQuery = errors.New("query refused")

func (g *gatheringQuerier) QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error) {
	name := req.CompositeQuery.Queries[0].Spec.Name
	if name == g.fail {
		return signoz.Result{}, errQuery
	}
	g.mu.Lock()
	g.inFlight++
	g.peak = max(g.peak, g.inFlight)
	if g.inFlight == g.gather {
		g.once.Do(func() { close(g.all) })
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	}()
	select {
	case <-g.all:
	case <-ctx.Done():
		g.mu.Lock()
		g.canceled++
		g.mu.Unlock()
		return signoz.Result{}, ctx.Err()
	case <-time.After(10 * time.Second):
	}
	return signoz.Result{Body: []byte(name)}, nil
}

// TestRunStage: a stage's queries run at once, as many as MaxParallel, and
// come back in plan order; the first failure cancels the rest and is the
// error returned, with its query's index.
func TestRunStage(t *testing.T) {
	t.Parallel()
	names := []string{"q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"}
	tests := []struct {
		name        string
		maxParallel int
		gather      int
		fail        string
		peak        int
		failed      int
	}{
		{name: "the nine overview queries run together", gather: 9, peak: 9},
		{name: "bounded by MaxParallel", maxParallel: 3, gather: 3, peak: 3},
		{name: "one at a time", maxParallel: 1, gather: 1, peak: 1},
		{name: "the first failure cancels the others", gather: 9, fail: "q4", failed: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := &gatheringQuerier{gather: tt.gather, fail: tt.fail, all: make(chan struct{})}
			e := &Executor{Query: q, MaxParallel: tt.maxParallel}
			var qs []tools.Query
			for _, n := range names {
				qs = append(qs, tools.Query{Name: n, Request: signoz.NewRequest(signoz.RequestScalar, 0, 1, signoz.BuilderQuery{Name: n})})
			}
			results, failed, err := e.runStage(context.Background(), qs)
			if tt.fail != "" {
				require.ErrorIs(t, err, errQuery)
				require.Equal(t, tt.failed, failed)
				require.Positive(t, q.canceled, "the queries in flight were cancelled")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.peak, q.peak)
			for i, r := range results {
				require.Equal(t, names[i], string(r.Body), "in plan order")
			}
		})
	}
}
