package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// processed is a recording around "api" (called by "web", beside an
// unrelated "batch"): v1 served by pid 100 until a deploy fifteen minutes
// before the end started v2 as pid 200; from the onset, ten minutes before
// the end, v2 fails. What happens to the processes is the case.
type processed struct {
	// oom: pid 200 stops four minutes after the onset and, after a gap of
	// two minutes with no span, pid 201 of v2 takes over.
	oom bool
	// earlyRestart: the same, but before the onset.
	earlyRestart bool
	// scaleOut: pid 201 of v2 starts after the onset beside pid 200.
	scaleOut bool
	// neighbours: web and batch restart after the onset.
	neighbours bool
	// noPid: no span carries process.pid.
	noPid bool
}

func (p processed) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(23, 29))
	now := time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)
	onset, deploy, startsAt := now.Add(-10*time.Minute), now.Add(-15*time.Minute), now.Add(-4*time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "processed", Service: "api", Now: now}}
	add := func(at time.Time, svc, version, pid, trace, id, parent string, kind int, msg string) {
		res := map[string]string{"service.name": svc, "service.version": version}
		if !p.noPid {
			res["process.pid"] = pid
		}
		s := incident.Span{Timestamp: at, TraceID: trace, SpanID: id, ParentSpanID: parent, Name: "GET /x", Kind: kind, DurationNano: 20e6,
			Resource: res, Attributes: map[string]json.RawMessage{}}
		if msg != "" {
			s.HasError, s.StatusCode, s.StatusMessage = true, 2, msg
		}
		inc.Spans = append(inc.Spans, s)
	}
	stop, start := onset.Add(4*time.Minute), onset.Add(6*time.Minute)
	if p.earlyRestart {
		stop, start = deploy.Add(time.Minute), deploy.Add(3*time.Minute)
	}
	for at := now.Add(-60 * time.Minute); at.Before(now); at = at.Add(2 * time.Second) {
		bad := !at.Before(onset)
		v, pid := "v1", "100"
		if !at.Before(deploy) {
			v, pid = "v2", "200"
		}
		restarted := (p.oom || p.earlyRestart) && !at.Before(stop)
		if restarted && at.Before(start) {
			continue // the gap: no process serves
		}
		if restarted || (p.scaleOut && !at.Before(onset.Add(3*time.Minute)) && r.IntN(2) == 0) {
			pid = "201"
		}
		msg := ""
		if bad && r.Float64() < 0.3 {
			msg = "503 server overloaded"
		}
		nb := "1"
		if p.neighbours && bad {
			nb = "2"
		}
		trace, root, server := hexID(r, 16), hexID(r, 8), hexID(r, 8)
		add(at, "web", "w1", nb, trace, root, "", 2, msg)
		add(at, "api", v, pid, trace, server, root, 2, msg)
		if at.Second()%10 == 0 {
			add(at, "batch", "b1", nb, hexID(r, 16), hexID(r, 8), "", 5, "")
		}
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// TestProcessRestarts: service_overview names a process of the running
// version replaced by another of the same version since the onset, and not a
// deploy, a scale-out, an earlier restart or another service's restart.
func TestProcessRestarts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    processed
		want []contracts.ProcessRestart
	}{
		{"v2's process restarts after the onset", processed{oom: true}, []contracts.ProcessRestart{{Version: "v2", OldPID: "200", NewPID: "201",
			LastSeen: time.Date(2026, 11, 20, 13, 53, 0, 0, time.UTC), At: time.Date(2026, 11, 20, 13, 56, 0, 0, time.UTC), GapMinutes: 2}}},
		{"the deploy alone replaces v1's process with v2's", processed{}, nil},
		{"a second process of v2 starts beside the first", processed{scaleOut: true}, nil},
		{"v2 restarted before the onset", processed{earlyRestart: true}, nil},
		{"the caller and a neighbour restart", processed{neighbours: true}, nil},
		{"no process.pid", processed{oom: true, noPid: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := apiOverview(t, tt.p.incident)
			require.Equal(t, tt.want, out.Facts.Restarts, out.Compact)
			if tt.want != nil {
				require.Contains(t, out.Compact, `process restarted since the onset (process.pid, same service.version "v2")`)
			}
		})
	}
}
