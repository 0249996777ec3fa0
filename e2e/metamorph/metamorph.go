// Package metamorph transforms recorded incidents on disk (INCIDENT-FORMAT.md)
// in ways that must not change the right answer: cut the recording short,
// extend it with hours of normal traffic, multiply or divide the traffic,
// sample traces differently, switch the attributes' semantic-convention
// generation. A replay of the original and of the transformed folder must
// decide alike; e2e's metamorphic test holds the pipeline to that.
//
// The transforms work on the raw JSON lines, so fields the format does not
// name (span events, severity numbers) survive unchanged. They are
// deterministic: new trace and span ids are derived from the old ones.
package metamorph

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"agentk/contracts/incident"
)

// ErrTransform is returned when an incident folder cannot be transformed.
var ErrTransform = errors.New("metamorph")

// Line is one span or log line, its fields kept as raw JSON.
type Line map[string]json.RawMessage

// Folder is an incident folder held as lines.
type Folder struct {
	ID       string
	Incident []byte // incident.yaml
	Alert    []byte
	Releases []byte
	Spans    []Line
	Logs     []Line
	HasLogs  bool
}

// Read loads the folder dir as raw lines.
func Read(dir string) (*Folder, error) {
	f := &Folder{ID: filepath.Base(filepath.Clean(dir))}
	var err error
	if f.Incident, err = os.ReadFile(filepath.Join(dir, "incident.yaml")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTransform, err)
	}
	if f.Alert, err = os.ReadFile(filepath.Join(dir, "alert.json")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTransform, err)
	}
	if f.Releases, err = os.ReadFile(filepath.Join(dir, "releases.yaml")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTransform, err)
	}
	if f.Spans, _, err = readLines(dir, incident.FileSpans); err != nil {
		return nil, err
	}
	f.Logs, f.HasLogs, err = readLines(dir, incident.FileLogs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return f, nil
}

// readLines reads the telemetry file name of dir, plain or gzip-compressed
// (incident.OpenTelemetry); found says the folder holds it.
func readLines(dir, name string) (out []Line, found bool, err error) {
	r, file, err := incident.OpenTelemetry(dir, name)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", ErrTransform, err)
	}
	defer r.Close()
	out, err = scanLines(r, file)
	return out, true, err
}

func scanLines(r io.Reader, file string) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %v", ErrTransform, file, n, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrTransform, file, err)
	}
	return out, nil
}

var idLine = regexp.MustCompile(`(?m)^id:.*$`)

// Write writes the folder as dir/<id>, renaming it to id (incident.yaml's
// id must equal the folder name).
func (f *Folder) Write(dir, id string) (string, error) {
	d := filepath.Join(dir, id)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	meta := idLine.ReplaceAll(f.Incident, []byte("id: "+id))
	files := map[string][]byte{"incident.yaml": meta, "alert.json": f.Alert, "releases.yaml": f.Releases, "spans.jsonl": encodeLines(f.Spans)}
	if f.HasLogs {
		files["logs.jsonl"] = encodeLines(f.Logs)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(d, name), b, 0o644); err != nil {
			return "", err
		}
	}
	return d, nil
}

func encodeLines(ls []Line) []byte {
	var buf bytes.Buffer
	for _, l := range ls {
		b, _ := json.Marshal(l)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// Clone returns a deep copy of the folder.
func (f *Folder) Clone() *Folder {
	c := *f
	c.Spans = cloneLines(f.Spans)
	c.Logs = cloneLines(f.Logs)
	return &c
}

func cloneLines(ls []Line) []Line {
	out := make([]Line, len(ls))
	for i, l := range ls {
		m := make(Line, len(l))
		for k, v := range l {
			m[k] = slices.Clone(v)
		}
		out[i] = m
	}
	return out
}

// str reads a string field.
func (l Line) str(k string) string {
	var s string
	_ = json.Unmarshal(l[k], &s)
	return s
}

func (l Line) set(k string, v any) {
	b, _ := json.Marshal(v)
	l[k] = b
}

// Time returns the line's timestamp.
func (l Line) Time() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, l.str("timestamp"))
	return t
}

func (l Line) setTime(t time.Time) {
	l.set("timestamp", t.UTC().Format("2006-01-02T15:04:05.000000000Z"))
}

// IsMarker reports whether a span line is a deployment marker.
func (l Line) IsMarker() bool { return l.str("name") == "deployment.marker" }

// Service returns the line's resource service.name.
func (l Line) Service() string {
	var res map[string]json.RawMessage
	_ = json.Unmarshal(l["resource"], &res)
	var s string
	_ = json.Unmarshal(res["service.name"], &s)
	return s
}

// remapID derives a new hex id of the same length from an id and a salt.
func remapID(id, salt string) string {
	if id == "" {
		return ""
	}
	h := sha256.Sum256([]byte(salt + "/" + id))
	s := hex.EncodeToString(h[:])
	for len(s) < len(id) {
		s += s
	}
	return s[:len(id)]
}

// keep reports whether a trace survives 1-in-n sampling, by its id.
func keep(traceID string, n int) bool {
	h := sha256.Sum256([]byte(traceID))
	return binary.BigEndian.Uint64(h[:8])%uint64(n) == 0
}

func sortByTime(ls []Line) {
	slices.SortStableFunc(ls, func(a, b Line) int { return a.Time().Compare(b.Time()) })
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
