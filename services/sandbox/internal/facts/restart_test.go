package facts_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// proc is one process: its version, process.pid and the minutes
// [from, to) it served entry spans.
type proc struct {
	version, pid string
	from, to     int
}

// processResponses are the entry spans per minute by version (procs and
// extra, minutes served with no pid series of their own) and by version
// and process (procs; without process.pid when noPid).
func processResponses(procs, extra []proc, noPid bool) (versions, byProc []ser) {
	byVersion := map[string]map[int]float64{}
	for _, p := range append(append([]proc(nil), procs...), extra...) {
		if byVersion[p.version] == nil {
			byVersion[p.version] = map[int]float64{}
		}
		for i := p.from; i < p.to; i++ {
			byVersion[p.version][i] += 30
		}
	}
	for _, v := range []string{"v1", "v2"} {
		if m, ok := byVersion[v]; ok {
			versions = append(versions, ser{labels("service.version", v), 0, m})
		}
	}
	for _, p := range procs {
		l := labels("service.version", p.version, "process.pid", p.pid)
		if noPid {
			l = labels("service.version", p.version)
		}
		byProc = append(byProc, ser{l, 0, flat(p.from, p.to, 30)})
	}
	return versions, byProc
}

// TestProcessRestarts: a process of the running version replaced by
// another of the same version since the onset (minute 50) is a restart,
// with the minutes no version served between them; a deploy, a scale-out,
// an earlier restart, another version's restart or spans without
// process.pid are not.
func TestProcessRestarts(t *testing.T) {
	t.Parallel()
	const onset = 50
	v1 := proc{"v1", "100", 0, 45}
	tests := []struct {
		name  string
		procs []proc
		extra []proc // served without a pid series of their own
		noPid bool
		noRel bool
		want  []contracts.ProcessRestart
	}{
		{"v2's process restarts after the onset", []proc{v1, {"v2", "200", 45, 54}, {"v2", "201", 56, 60}}, nil, false, false,
			[]contracts.ProcessRestart{{Version: "v2", OldPID: "200", NewPID: "201", LastSeen: at(53), At: at(56), GapMinutes: 2}}},
		{"another version serves in the gap", []proc{v1, {"v2", "200", 45, 54}, {"v2", "201", 56, 60}}, []proc{{"v1", "", 54, 55}}, false, false,
			[]contracts.ProcessRestart{{Version: "v2", OldPID: "200", NewPID: "201", LastSeen: at(53), At: at(56), GapMinutes: 1}}},
		{"the handover shares a minute", []proc{v1, {"v2", "200", 45, 57}, {"v2", "201", 56, 60}}, nil, false, false,
			[]contracts.ProcessRestart{{Version: "v2", OldPID: "200", NewPID: "201", LastSeen: at(56), At: at(56)}}},
		{"the deploy alone replaces v1's process with v2's", []proc{v1, {"v2", "200", 45, 60}}, nil, false, false, nil},
		{"a second process of v2 starts beside the first", []proc{v1, {"v2", "200", 45, 60}, {"v2", "201", 53, 60}}, nil, false, false, nil},
		{"v2 restarted before the onset", []proc{v1, {"v2", "200", 45, 46}, {"v2", "201", 48, 60}}, nil, false, false, nil},
		{"v1 restarts, v2 runs", []proc{{"v1", "100", 0, 52}, {"v1", "101", 53, 60}, {"v2", "200", 45, 60}}, nil, false, false, nil},
		{"no process.pid", []proc{v1, {"v2", "200", 45, 54}, {"v2", "201", 56, 60}}, nil, true, false, nil},
		{"no running release measured", []proc{v1, {"v2", "200", 45, 54}, {"v2", "201", 56, 60}}, nil, false, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			versions, procs := processResponses(tt.procs, tt.extra, tt.noPid)
			rel := &contracts.ReleaseErrors{Version: "v2"}
			if tt.noRel {
				rel = nil
			}
			got, err := facts.RunningRestarts(response(t, versions...), response(t, procs...), rel, at(onset))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
	_, err := facts.RunningRestarts(rawResponse(), response(t), &contracts.ReleaseErrors{Version: "v2"}, at(onset))
	require.ErrorIs(t, err, facts.ErrBadResponse)
	_, err = facts.RunningRestarts(response(t), rawResponse(), &contracts.ReleaseErrors{Version: "v2"}, at(onset))
	require.ErrorIs(t, err, facts.ErrBadResponse)
}
