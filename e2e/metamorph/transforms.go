package metamorph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Transform is one metamorphic change of an incident folder. Name is a
// folder-name suffix.
type Transform struct {
	Name  string
	Apply func(*Folder) (*Folder, error)
}

// Cut drops every span and log before from: the recording starts there.
func Cut(from time.Time) Transform {
	return Transform{Name: "cut", Apply: func(f *Folder) (*Folder, error) {
		c := f.Clone()
		c.Spans = filter(c.Spans, func(l Line) bool { return !l.Time().Before(from) })
		c.Logs = filter(c.Logs, func(l Line) bool { return !l.Time().Before(from) })
		if len(c.Spans) == 0 {
			return nil, fmt.Errorf("%w: cut at %s leaves no spans", ErrTransform, from.Format(time.RFC3339))
		}
		return c, nil
	}}
}

// Extend prepends hours of normal traffic: the recording's first window
// (which must precede the onset and every marker) is replayed backwards in
// time, tile after tile, with fresh ids. Markers are never copied.
func Extend(hours time.Duration, window time.Duration) Transform {
	return Transform{Name: "extend", Apply: func(f *Folder) (*Folder, error) {
		c := f.Clone()
		first := earliest(c.Spans)
		end := first.Add(window)
		src := filter(c.Spans, func(l Line) bool { return l.Time().Before(end) && !l.IsMarker() })
		srcLogs := filter(c.Logs, func(l Line) bool { return l.Time().Before(end) })
		for _, l := range src {
			if bytes.Contains(l["name"], []byte("deployment.marker")) {
				return nil, fmt.Errorf("%w: the extension window holds a marker", ErrTransform)
			}
		}
		if len(src) == 0 {
			return nil, fmt.Errorf("%w: no spans in the first %s to extend with", ErrTransform, window)
		}
		tiles := int(hours / window)
		var add, addLogs []Line
		for k := 1; k <= tiles; k++ {
			shift := -time.Duration(k) * window
			salt := fmt.Sprintf("extend-%d", k)
			for _, l := range cloneLines(src) {
				l.setTime(l.Time().Add(shift))
				reid(l, salt)
				add = append(add, l)
			}
			for _, l := range cloneLines(srcLogs) {
				l.setTime(l.Time().Add(shift))
				reid(l, salt)
				addLogs = append(addLogs, l)
			}
		}
		c.Spans = append(add, c.Spans...)
		c.Logs = append(addLogs, c.Logs...)
		sortByTime(c.Spans)
		sortByTime(c.Logs)
		return c, nil
	}}
}

// Multiply stores every trace k times (k-1 copies with fresh ids, a few
// milliseconds apart), as if the offered load were k times higher. Markers
// and logs without a trace are not copied.
func Multiply(k int) Transform {
	return Transform{Name: fmt.Sprintf("traffic-x%d", k), Apply: func(f *Folder) (*Folder, error) {
		c := f.Clone()
		var add, addLogs []Line
		for i := 1; i < k; i++ {
			salt := fmt.Sprintf("x%d", i)
			shift := time.Duration(i) * 7 * time.Millisecond
			for _, l := range cloneLines(c.Spans) {
				if l.IsMarker() {
					continue
				}
				l.setTime(l.Time().Add(shift))
				reid(l, salt)
				add = append(add, l)
			}
			for _, l := range cloneLines(c.Logs) {
				if l.str("trace_id") == "" {
					continue
				}
				l.setTime(l.Time().Add(shift))
				reid(l, salt)
				addLogs = append(addLogs, l)
			}
		}
		c.Spans = append(c.Spans, add...)
		c.Logs = append(c.Logs, addLogs...)
		sortByTime(c.Spans)
		sortByTime(c.Logs)
		return c, nil
	}}
}

// Sample keeps one trace in n (whole traces, by trace id), as a head
// sampler would; markers and logs without a trace are kept. Divide traffic
// by n and sample 1-in-n more are the same on disk; both names exist so a
// report says which was meant.
func Sample(n int, name string) Transform {
	return Transform{Name: name, Apply: func(f *Folder) (*Folder, error) {
		c := f.Clone()
		c.Spans = filter(c.Spans, func(l Line) bool { return l.IsMarker() || keep(l.str("trace_id"), n) })
		c.Logs = filter(c.Logs, func(l Line) bool { t := l.str("trace_id"); return t == "" || keep(t, n) })
		return c, nil
	}}
}

// Semconv renames attributes to the other generation of the OpenTelemetry
// semantic conventions: "new" maps old names to new, "old" the reverse.
// The table is the transform's own (the world generator spells attributes
// independently): the point is that two spellings of one fact decide alike.
func Semconv(to string) Transform {
	return Transform{Name: "semconv-" + to, Apply: func(f *Folder) (*Folder, error) {
		c := f.Clone()
		for _, ls := range [][]Line{c.Spans, c.Logs} {
			for _, l := range ls {
				m := oldToNew
				if to == "old" {
					// server.address is net.host.name on a server span and
					// net.peer.name on a client span.
					m = newToOldClient
					if string(l["kind"]) == "2" {
						m = newToOldServer
					}
				}
				for _, field := range []string{"attributes", "resource"} {
					if err := renameKeys(l, field, m); err != nil {
						return nil, err
					}
				}
			}
		}
		return c, nil
	}}
}

var newToOldClient, newToOldServer = reverse("net.peer."), reverse("net.host.")

// reverse inverts oldToNew, choosing the network prefix for server.*.
func reverse(netPrefix string) map[string]string {
	m := map[string]string{}
	for k, v := range oldToNew {
		if strings.HasPrefix(k, "net.") && !strings.HasPrefix(k, netPrefix) {
			continue
		}
		m[v] = k
	}
	return m
}

// oldToNew is the pre-1.20 → stable attribute renaming of the HTTP,
// network, database and gen_ai conventions.
var oldToNew = map[string]string{
	"http.method":                     "http.request.method",
	"http.status_code":                "http.response.status_code",
	"http.url":                        "url.full",
	"http.target":                     "url.path",
	"http.scheme":                     "url.scheme",
	"http.flavor":                     "network.protocol.version",
	"http.user_agent":                 "user_agent.original",
	"http.resend_count":               "http.request.resend_count",
	"net.peer.name":                   "server.address",
	"net.peer.port":                   "server.port",
	"net.host.name":                   "server.address",
	"net.host.port":                   "server.port",
	"db.statement":                    "db.query.text",
	"db.operation":                    "db.operation.name",
	"db.name":                         "db.namespace",
	"db.sql.table":                    "db.collection.name",
	"db.system":                       "db.system.name",
	"db.client.connections.pool.name": "db.client.connection.pool.name",
	"gen_ai.system":                   "gen_ai.provider.name",
	"gen_ai.usage.prompt_tokens":      "gen_ai.usage.input_tokens",
	"gen_ai.usage.completion_tokens":  "gen_ai.usage.output_tokens",
	"deployment.environment":          "deployment.environment.name",
}

func renameKeys(l Line, field string, m map[string]string) error {
	raw, ok := l[field]
	if !ok || string(raw) == "null" {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("%w: %s not an object", ErrTransform, field)
	}
	out := make(map[string]json.RawMessage, len(obj))
	for k, v := range obj {
		if n, ok := m[k]; ok && (field == "attributes" || strings.HasPrefix(k, "deployment.")) {
			if _, clash := obj[n]; !clash {
				out[n] = v
				continue
			}
		}
		out[k] = v
	}
	b, _ := json.Marshal(out)
	l[field] = b
	return nil
}

func filter(ls []Line, keep func(Line) bool) []Line {
	out := ls[:0:0]
	for _, l := range ls {
		if keep(l) {
			out = append(out, l)
		}
	}
	return out
}

func earliest(ls []Line) time.Time {
	var t time.Time
	for _, l := range ls {
		if lt := l.Time(); t.IsZero() || lt.Before(t) {
			t = lt
		}
	}
	return t
}

// reid gives a copied line fresh trace and span ids, consistently within a
// copy so parent links still hold.
func reid(l Line, salt string) {
	for _, k := range []string{"trace_id", "span_id", "parent_span_id"} {
		if _, ok := l[k]; ok {
			l.set(k, remapID(l.str(k), salt))
		}
	}
}
