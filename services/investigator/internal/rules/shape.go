package rules

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// spanStat is one span name's p95 latency before and after the onset.
type spanStat struct {
	kind          string
	before, after float64
	haveBefore    bool
}

// Shape is what the follow-up aggregates say (see followUps): the latency of
// each span name before and after the onset, which span names are model
// calls (gen_ai.request.model), how many spans of each name fail after the
// onset, and the dependency hosts called before and after it.
type Shape struct {
	Latency     map[string]*spanStat
	Model       map[string]bool
	Failing     map[string]float64
	FailingKind map[string]string
	HostsBefore map[string]bool
	HostsAfter  map[string]bool
	// ChangeTypes are the deployment.type values of the markers.
	ChangeTypes map[string]bool
	// Ordinary are the counts of qOrdinaryBefore and qOrdinaryAfter, and
	// OrdinaryMinutes the length of the window each counted, by query id.
	Ordinary, OrdinaryMinutes map[string]float64
	// IDs are the evidence ids of each query, by query id.
	IDs map[string][]string
}

// queryOf names the follow-up query an aggregate answered, from its
// arguments; "" for any other evidence.
func queryOf(e loop.Evidence) string {
	if e.Tool != contracts.ToolAggregateTraces {
		return ""
	}
	var a contracts.ToolArgs
	if json.Unmarshal(e.Arguments, &a) != nil {
		return ""
	}
	before := a.To != nil && a.From == nil
	switch {
	case strings.Contains(a.Filter, entryFilter):
		return pickQuery(slices.Contains(a.GroupBy, "kind_string"), qOrdinaryBefore, qOrdinaryAfter)
	case slices.Contains(a.GroupBy, "deployment.type"):
		return qChange
	case slices.Contains(a.GroupBy, "gen_ai.request.model"):
		return qModel
	case a.Aggregation == "count" && strings.Contains(a.Filter, "has_error"):
		return qErrors
	case slices.Contains(a.GroupBy, "server.address"):
		return pickQuery(before, qHostsBefore, qHostsAfter)
	case slices.Contains(a.GroupBy, "net.peer.name"):
		return pickQuery(before, qPeersBefore, qPeersAfter)
	case slices.Contains(a.GroupBy, "kind_string"):
		return pickQuery(before, qBefore, qAfter)
	}
	return ""
}

func pickQuery(before bool, b, a string) string {
	if before {
		return b
	}
	return a
}

// readShape reads the follow-up aggregates among evidence.
func readShape(evidence []loop.Evidence) Shape {
	sh := Shape{Latency: map[string]*spanStat{}, Model: map[string]bool{}, Failing: map[string]float64{},
		FailingKind: map[string]string{}, HostsBefore: map[string]bool{}, HostsAfter: map[string]bool{}, ChangeTypes: map[string]bool{}, IDs: map[string][]string{},
		Ordinary: map[string]float64{}, OrdinaryMinutes: map[string]float64{}}
	for _, e := range evidence {
		q := queryOf(e)
		if q == "" {
			continue
		}
		sh.IDs[q] = append(sh.IDs[q], e.ID)
		if q == qOrdinaryBefore || q == qOrdinaryAfter {
			sh.OrdinaryMinutes[q] = e.To.Sub(e.From).Minutes()
		}
		for _, row := range spanRows(e.Compact) {
			sh.add(q, row)
		}
	}
	return sh
}

func (sh *Shape) add(q string, row map[string]any) {
	name := str(row, "name")
	p95, _ := number(row, "p95_ms")
	count, _ := number(row, "count")
	switch q {
	case qBefore, qAfter:
		if name == "" || name == markerSpan {
			return
		}
		st := sh.Latency[name]
		if st == nil {
			st = &spanStat{kind: str(row, "kind_string")}
			sh.Latency[name] = st
		}
		if q == qBefore {
			st.before, st.haveBefore = p95, true
		} else {
			st.after = p95
		}
	case qModel:
		sh.Model[name] = true
	case qErrors:
		sh.Failing[name] += count
		sh.FailingKind[name] = str(row, "kind_string")
	case qOrdinaryBefore, qOrdinaryAfter:
		sh.Ordinary[q] += count
	case qHostsBefore, qPeersBefore:
		sh.HostsBefore[str(row, "server.address", "net.peer.name")] = true
	case qChange:
		sh.ChangeTypes[strings.ToLower(str(row, "deployment.type"))] = true
	case qHostsAfter, qPeersAfter:
		sh.HostsAfter[str(row, "server.address", "net.peer.name")] = true
	}
}

// markerSpan is the name of deployment-marker spans, which are not traffic.
const markerSpan = "deployment.marker"

// Latency-shape thresholds.
const (
	// SlowRatio is the growth of a span's p95 that counts as slowed.
	SlowRatio = 2.0
	// EvenRatio is the growth every server span shows when load or
	// pressure slows the whole service.
	EvenRatio = 1.3
	// DominantShare is the part of the server spans' growth one child span
	// must account for to dominate it.
	DominantShare = 0.5
)

// serverGrowth is the largest growth of a server span's p95 (ms), and
// whether every server span measured on both sides grew by EvenRatio.
func (sh Shape) serverGrowth() (growth float64, even bool, n int) {
	even = true
	for _, st := range sh.Latency {
		if st.kind != "Server" || !st.haveBefore || st.before <= 0 || st.after <= 0 {
			continue
		}
		n++
		growth = max(growth, st.after-st.before)
		if st.after < st.before*EvenRatio {
			even = false
		}
	}
	return growth, even && n > 0, n
}

// slowChild returns the child span (not a server span) whose p95 grew most,
// when it grew by SlowRatio and accounts for DominantShare of the server
// spans' growth.
func (sh Shape) slowChild() (name string, ok bool) {
	return sh.slowChildOf(func(string) bool { return true })
}

// slowDependency is slowChild over the spans that leave the process
// (client and producer spans): an internal span is the service's own code,
// which slows with it when the whole process is short of CPU or memory
// (the stranger corpus's st-even-slowdown-catalog-read: a handler span of
// 55% of each request "dominated" an even slowdown).
func (sh Shape) slowDependency() (name string, ok bool) {
	return sh.slowChildOf(func(kind string) bool { return kind != "Internal" })
}

func (sh Shape) slowChildOf(counts func(kind string) bool) (name string, ok bool) {
	growth, _, _ := sh.serverGrowth()
	best := 0.0
	for n, st := range sh.Latency {
		if st.kind == "Server" || !counts(st.kind) || !st.haveBefore || st.before <= 0 || st.after < st.before*SlowRatio {
			continue
		}
		if g := st.after - st.before; g > best {
			best, name = g, n
		}
	}
	return name, name != "" && growth > 0 && best >= DominantShare*growth
}

// childSlowed reports whether a child span (not a server span, not a model
// call) grew by SlowRatio.
func (sh Shape) childSlowed() bool {
	for n, st := range sh.Latency {
		if st.kind != "Server" && !sh.Model[n] && st.haveBefore && st.before > 0 && st.after >= st.before*SlowRatio {
			return true
		}
	}
	return false
}

// modelSlowed reports whether a model-call span's p95 grew by SlowRatio.
func (sh Shape) modelSlowed() bool {
	for n, st := range sh.Latency {
		if sh.Model[n] && st.haveBefore && st.before > 0 && st.after >= st.before*SlowRatio {
			return true
		}
	}
	return false
}

// sinceOnsetRate reads the overview's minutes around the onset and returns
// the error rate of those from the onset's minute on.
func sinceOnsetRate(compact string, onset time.Time) (float64, bool) {
	from := onset.UTC().Format("15:04")
	var errs, reqs float64
	for _, row := range spanRows(compact) {
		m := str(row, "minute")
		if m == "" || m < from {
			continue
		}
		e, _ := number(row, "errors")
		n, _ := number(row, "requests")
		errs, reqs = errs+e, reqs+n
	}
	if reqs == 0 {
		return 0, false
	}
	return errs / reqs, true
}
