package metamorph

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The transforms of issue 35: the same incident with its regression shown
// in another form of telemetry. Neither changes what failed or when.

var serviceLine = regexp.MustCompile(`(?m)^service:\s*"?([^"\s]+)"?\s*$`)

// affected is the incident's service (incident.yaml).
func (f *Folder) affected() string {
	m := serviceLine.FindSubmatch(f.Incident)
	if m == nil {
		return ""
	}
	return string(m[1])
}

func (l Line) kind() int {
	var k int
	_ = json.Unmarshal(l["kind"], &k)
	return k
}

func (l Line) failed() bool {
	var b bool
	_ = json.Unmarshal(l["has_error"], &b)
	return b
}

func (l Line) attrs() map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal(l["attributes"], &m)
	return m
}

func bucketOf(s string, n uint32) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return h.Sum32() % n
}

// OneOperation confines the failure to one operation of three: the affected
// service's entry spans (server and consumer) of traces where it fails keep
// their name and route; those of the other traces are spread over three
// operations, one of them the same (a third of the healthy traffic), two
// renamed. The service's errors and latency are as they were; one
// operation holds all of them.
func OneOperation() Transform {
	return Transform{Name: "one-operation", Apply: func(f *Folder) (*Folder, error) {
		c := f.Clone()
		svc := c.affected()
		failing := map[string]bool{}
		for _, l := range c.Spans {
			if l.Service() == svc && l.failed() {
				failing[l.str("trace_id")] = true
			}
		}
		if len(failing) == 0 {
			return nil, fmt.Errorf("%w: %s never fails: nothing to confine", ErrTransform, svc)
		}
		renamed := 0
		for _, l := range c.Spans {
			tid := l.str("trace_id")
			if l.Service() != svc || l.IsMarker() || failing[tid] || (l.kind() != 2 && l.kind() != 5) {
				continue
			}
			suffix := [...]string{"", "/preview", "/export"}[bucketOf(tid, 3)]
			if suffix == "" {
				continue
			}
			l.set("name", l.str("name")+suffix)
			a := l.attrs()
			for _, k := range []string{"http.route", "rpc.method", "messaging.destination.name"} {
				if v, ok := a[k].(string); ok {
					a[k] = v + suffix
				}
			}
			l.set("attributes", a)
			renamed++
		}
		if renamed == 0 {
			return nil, fmt.Errorf("%w: %s has no healthy entry span to spread", ErrTransform, svc)
		}
		return c, nil
	}}
}

// RetriesInAttribute moves the affected service's retries from client
// spans into a retry-count attribute: the client spans of one trace under
// the same parent to the same peer and name are one call with its
// attempts; the first is kept, stretched to the last attempt's end, failing
// as the last did, with retry_count set to the attempts beyond the first;
// the others are dropped and whatever ran beneath them hangs from the kept
// one. A recording without such retries is refused.
func RetriesInAttribute() Transform {
	return Transform{Name: "retries-in-attribute", Apply: func(f *Folder) (*Folder, error) {
		c := f.Clone()
		svc := c.affected()
		groups := map[string][]int{}
		var order []string
		for i, l := range c.Spans {
			if l.Service() != svc || l.kind() != 3 {
				continue
			}
			a := l.attrs()
			peer := fmt.Sprint(a["server.address"], a["net.peer.name"], a["peer.service"])
			k := strings.Join([]string{l.str("trace_id"), l.str("parent_span_id"), l.str("name"), peer}, "\x00")
			if groups[k] == nil {
				order = append(order, k)
			}
			groups[k] = append(groups[k], i)
		}
		drop, moved := map[int]bool{}, map[string]string{}
		for _, k := range order {
			idx := groups[k]
			if len(idx) < 2 {
				continue
			}
			slices.SortFunc(idx, func(a, b int) int { return c.Spans[a].Time().Compare(c.Spans[b].Time()) })
			keep, last := c.Spans[idx[0]], c.Spans[idx[len(idx)-1]]
			var lastDur int64
			_ = json.Unmarshal(unquote(last["duration_nano"]), &lastDur)
			end := last.Time().Add(time.Duration(lastDur))
			keep.set("duration_nano", end.Sub(keep.Time()).Nanoseconds())
			for _, fld := range []string{"has_error", "status_code", "status_message"} {
				if v, ok := last[fld]; ok {
					keep[fld] = v
				}
			}
			a := keep.attrs()
			delete(a, "http.request.resend_count")
			a["retry_count"] = len(idx) - 1
			keep.set("attributes", a)
			for _, i := range idx[1:] {
				drop[i] = true
				moved[c.Spans[i].str("span_id")] = keep.str("span_id")
			}
		}
		if len(drop) == 0 {
			return nil, fmt.Errorf("%w: %s has no retried client call to move", ErrTransform, svc)
		}
		var out []Line
		for i, l := range c.Spans {
			if drop[i] {
				continue
			}
			if to, ok := moved[l.str("parent_span_id")]; ok {
				l.set("parent_span_id", to)
			}
			out = append(out, l)
		}
		c.Spans = out
		return c, nil
	}}
}

// unquote reads a JSON number that may be written as a string.
func unquote(b []byte) []byte {
	if len(b) > 1 && b[0] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}
