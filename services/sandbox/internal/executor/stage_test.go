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

// refusingQuerier answers every query with its name, and the query named
// query with err.
type refusingQuerier struct {
	query string
	err   error
}

func (r refusingQuerier) QueryRange(_ context.Context, req signoz.QueryRangeRequest) (signoz.Result, error) {
	name := req.CompositeQuery.Queries[0].Spec.Name
	if name == r.query {
		return signoz.Result{}, r.err
	}
	return signoz.Result{Body: []byte(name)}, nil
}

// TestRunStageOptional: SigNoz refusing an optional query (ErrAPI: a field
// it has never seen) leaves an empty response saying why, and the stage
// goes on; SigNoz unavailable or refusing the key fails it as for any
// query, and a required query refused fails it.
func TestRunStageOptional(t *testing.T) {
	t.Parallel()
	refused := &signoz.APIError{HTTPStatus: 400, Message: "field `jvm.gc.duration` not found"}
	tests := []struct {
		name     string
		optional bool
		err      error
		fails    bool
	}{
		{"optional, refused: measured without it", true, refused, false},
		{"optional, SigNoz unavailable", true, &signoz.APIError{HTTPStatus: 503}, true},
		{"optional, the key refused", true, &signoz.APIError{HTTPStatus: 403}, true},
		{"optional, a transport failure", true, signoz.ErrUnavailable, true},
		{"required, refused", false, refused, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := &Executor{Query: refusingQuerier{query: "runtime", err: tt.err}}
			var qs []tools.Query
			for _, n := range []string{"minutes", "runtime", "roots"} {
				qs = append(qs, tools.Query{Name: n, Request: signoz.NewRequest(signoz.RequestScalar, 0, 1, signoz.BuilderQuery{Name: n}),
					Optional: n == "runtime" && tt.optional})
			}
			results, failed, err := e.runStage(context.Background(), qs)
			if tt.fails {
				require.Error(t, err)
				require.Equal(t, 1, failed)
				return
			}
			require.NoError(t, err)
			require.Equal(t, "minutes", string(results[0].Body))
			require.Empty(t, results[1].Body)
			require.Contains(t, results[1].Response.Refused, "jvm.gc.duration")
			require.Equal(t, "roots", string(results[2].Body))
		})
	}
}
