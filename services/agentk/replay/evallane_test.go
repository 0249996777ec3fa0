package replay

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// A replay whose investigator waits on the clock (persona:flaky) runs
// beside the workers, in the lane: with one worker, each incident's flaky
// replay runs while its oracle replay does (each stand-in replay below
// returns only once the other runs beside it, or after 5 s: one worker
// alone would replay them one after the other),
// never more than workers replays of the other investigators run at once
// nor more than workers+waitingLanes in all, and the outcomes come back in
// Eval's order.
func TestWaitingReplaysRunBesideTheWorkers(t *testing.T) {
	t.Parallel()
	var incs []*incident.Incident
	for i := range 3 {
		inc := &incident.Incident{}
		inc.Meta.ID = fmt.Sprintf("inc-%d", i)
		incs = append(incs, inc)
	}
	// Each stand-in replay returns once it met the incident's replay of the
	// other kind: a replay that starts meets the one running.
	type entry struct {
		inc     string
		waiting bool
		met     chan struct{}
	}
	var (
		mu              sync.Mutex
		running         = map[*entry]bool{}
		most, mostOther int
		alone           []string
	)
	run := func(ctx context.Context, inc *incident.Incident, o Options) (Result, error) {
		me := &entry{inc: inc.Meta.ID, waiting: strings.HasSuffix(o.Investigator, "flaky"), met: make(chan struct{})}
		mu.Lock()
		waiting := 0
		for e := range running {
			if e.inc == me.inc && e.waiting != me.waiting {
				select {
				case <-e.met:
				default:
					close(e.met)
				}
				select {
				case <-me.met:
				default:
					close(me.met)
				}
			}
			if e.waiting {
				waiting++
			}
		}
		running[me] = true
		if me.waiting {
			waiting++
		}
		most, mostOther = max(most, len(running)), max(mostOther, len(running)-waiting)
		mu.Unlock()
		defer func() {
			mu.Lock()
			delete(running, me)
			mu.Unlock()
		}()
		select {
		case <-me.met:
		case <-time.After(5 * time.Second):
			mu.Lock()
			alone = append(alone, o.Investigator+" "+inc.Meta.ID)
			mu.Unlock()
		}
		return Result{Incident: inc.Meta.ID, Investigator: o.Investigator}, nil
	}
	invs := []string{"persona:oracle", "persona:flaky"}
	outs := eval(context.Background(), incs, invs, Options{Shared: &Shared{}}, 1, nil, run)
	require.Empty(t, alone, "replays that ran with none of the other kind beside them")
	require.LessOrEqual(t, most, 1+waitingLanes, "at most workers+waitingLanes replays at once")
	require.Equal(t, 1, mostOther, "the lanes ran a replay that does not wait")
	require.Len(t, outs, 6)
	for k, inv := range invs {
		for n, inc := range incs {
			require.Equal(t, inv, outs[k*len(incs)+n].Investigator)
			require.Equal(t, inc.Meta.ID, outs[k*len(incs)+n].Incident)
		}
	}
}

// The waiting replays run waitingLanes at a time in the lanes, beside the
// workers: with one worker and persona:flaky alone, waitingLanes+1 replays
// run at once (each stand-in returns once that many run, or after 5 s: one
// lane would hold two at most, and an Eval with flaky would wait on the
// clock about 2.9 s per incident over two).
func TestWaitingReplaysShareTheLanes(t *testing.T) {
	t.Parallel()
	n := waitingLanes + 1
	var incs []*incident.Incident
	for i := range n {
		inc := &incident.Incident{}
		inc.Meta.ID = fmt.Sprintf("inc-%d", i)
		incs = append(incs, inc)
	}
	var (
		mu            sync.Mutex
		running, most int
		all           = make(chan struct{})
	)
	run := func(ctx context.Context, inc *incident.Incident, o Options) (Result, error) {
		mu.Lock()
		running++
		most = max(most, running)
		if running == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(5 * time.Second):
		}
		mu.Lock()
		running--
		mu.Unlock()
		return Result{Incident: inc.Meta.ID, Investigator: o.Investigator}, nil
	}
	outs := eval(context.Background(), incs, []string{"persona:flaky"}, Options{Shared: &Shared{}}, 1, nil, run)
	require.Equal(t, n, most, "waiting replays running at once, with one worker and %d lanes", waitingLanes)
	require.Len(t, outs, n)
	for k, inc := range incs {
		require.Equal(t, inc.Meta.ID, outs[k].Incident)
	}
}
