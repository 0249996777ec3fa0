package facts

import (
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// restartOverlap is how long an old process may still appear to serve after
// its successor's first minute: both fall into one per-minute bucket.
const restartOverlap = time.Minute

// processSpan is when one process of one version served entry spans (Unix
// milliseconds of its first and last minute).
type processSpan struct {
	first, last int64
}

// processes reads the entry spans per minute by service.version and the
// process.pid resource attribute (OpenTelemetry process semantic
// conventions) into each version's processes and when they served.
func processes(resp signoz.Response) (map[string]map[string]processSpan, error) {
	out := map[string]map[string]processSpan{}
	label := func(s signoz.Series) string {
		v, pid := LabelOf("service.version")(s), LabelOf("process.pid")(s)
		if v == "" || pid == "" {
			return ""
		}
		return v + "\x00" + pid
	}
	err := Samples(resp, label, func(g string, agg int, ts int64, n float64) {
		if agg != 0 || n <= 0 {
			return
		}
		v, pid, _ := strings.Cut(g, "\x00")
		if out[v] == nil {
			out[v] = map[string]processSpan{}
		}
		p, ok := out[v][pid]
		if !ok || ts < p.first {
			p.first = ts
		}
		if !ok || ts > p.last {
			p.last = ts
		}
		out[v][pid] = p
	})
	return out, err
}

// restarts lists the processes of version that first served at or after
// the onset while another process of the same version had stopped serving
// by then: a restart of the running release, not its deploy. served is every
// minute with an entry span of any version (for the gap between them).
func restarts(procs map[string]map[string]processSpan, version string, onset time.Time, served map[int64]bool) []contracts.ProcessRestart {
	var out []contracts.ProcessRestart
	byPid := procs[version]
	on := onset.UnixMilli()
	for _, pid := range sortedKeys(byPid) {
		b := byPid[pid]
		if b.first < on {
			continue
		}
		old, found := "", false
		for _, other := range sortedKeys(byPid) {
			a := byPid[other]
			if other == pid || a.first >= b.first || a.last > b.first+restartOverlap.Milliseconds() || a.last >= b.last {
				continue
			}
			if !found || a.last > byPid[old].last {
				old, found = other, true
			}
		}
		if !found {
			continue
		}
		r := contracts.ProcessRestart{Version: version, OldPID: old, NewPID: pid, LastSeen: time.UnixMilli(byPid[old].last).UTC(), At: time.UnixMilli(b.first).UTC()}
		for ts := byPid[old].last + time.Minute.Milliseconds(); ts < b.first; ts += time.Minute.Milliseconds() {
			if !served[ts] {
				r.GapMinutes++
			}
		}
		out = append(out, r)
	}
	return out
}

// RunningRestarts measures the restarts since onset of the release running
// since then (rel, from ReleaseErrors) from the entry spans per minute by
// service.version (versions) and by service.version and process.pid
// (procs); none when no version was measured (rel nil). It returns
// ErrBadResponse when a response is not a time series.
func RunningRestarts(versions, procs signoz.Response, rel *contracts.ReleaseErrors, onset time.Time) ([]contracts.ProcessRestart, error) {
	if rel == nil {
		return nil, nil
	}
	counts, err := VersionCounts(versions)
	if err != nil {
		return nil, err
	}
	served := map[int64]bool{}
	for _, byTs := range counts {
		for ts, n := range byTs {
			served[ts] = served[ts] || n > 0
		}
	}
	byVersion, err := processes(procs)
	if err != nil {
		return nil, err
	}
	return restarts(byVersion, rel.Version, onset, served), nil
}
