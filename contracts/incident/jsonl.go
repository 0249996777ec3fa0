package incident

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// maxLine is the longest JSONL line accepted (a span with large attributes).
const maxLine = 16 << 20

// fieldError is a problem with one field of one line.
type fieldError struct {
	Field string
	Msg   string
}

type lineDecoder struct {
	obj  map[string]json.RawMessage
	errs []fieldError
}

func newLineDecoder(line []byte) (*lineDecoder, *fieldError) {
	if json.Valid(line) {
		// One copy of the line, which its values are slices of (the
		// scanner reuses its buffer), as the decoder copies each value.
		if obj, ok := splitObject(bytes.Clone(line)); ok {
			return &lineDecoder{obj: obj}, nil
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, &fieldError{Msg: "not a JSON object: " + err.Error()}
	}
	if obj == nil {
		return nil, &fieldError{Msg: "not a JSON object: null"}
	}
	return &lineDecoder{obj: obj}, nil
}

func (d *lineDecoder) fail(field, format string, args ...any) {
	d.errs = append(d.errs, fieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

func isNull(r json.RawMessage) bool { return len(r) == 0 || bytes.Equal(r, []byte("null")) }

func (d *lineDecoder) str(field string, required bool) string {
	r, ok := d.obj[field]
	if !ok || isNull(r) {
		if required {
			d.fail(field, "required")
		}
		return ""
	}
	s, ok := PlainString(r)
	if !ok && json.Unmarshal(r, &s) != nil {
		d.fail(field, "not a string")
		return ""
	}
	if required && s == "" {
		d.fail(field, "required")
	}
	return s
}

func (d *lineDecoder) time(field string) time.Time {
	s := d.str(field, true)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		d.fail(field, "not RFC 3339")
		return time.Time{}
	}
	return t.UTC()
}

// int reads an integer given as a JSON number or a decimal string (SigNoz
// exports some int64 columns as strings).
func (d *lineDecoder) int(field string, lo, hi int64) int64 {
	r, ok := d.obj[field]
	if !ok || isNull(r) {
		return 0
	}
	if v, err := strconv.ParseInt(string(r), 10, 64); err == nil && r[0] != '+' {
		// Plain digits, the common case, read without the decoder.
		if v < lo || v > hi {
			d.fail(field, "%d out of range %d..%d", v, lo, hi)
		}
		return v
	}
	var n json.Number
	if err := json.Unmarshal(r, &n); err != nil {
		var s string
		if json.Unmarshal(r, &s) != nil {
			d.fail(field, "not an integer")
			return 0
		}
		n = json.Number(s)
	}
	v, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		d.fail(field, "not an integer")
		return 0
	}
	if v < lo || v > hi {
		d.fail(field, "%d out of range %d..%d", v, lo, hi)
	}
	return v
}

func (d *lineDecoder) bool(field string) bool {
	r, ok := d.obj[field]
	if !ok || isNull(r) {
		return false
	}
	var b bool
	if err := json.Unmarshal(r, &b); err != nil {
		d.fail(field, "not a boolean")
	}
	return b
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		isHex := '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
		if !isHex {
			return false
		}
	}
	return true
}

// hexID reads a trace or span id: n hex digits, or empty when optional.
func (d *lineDecoder) hexID(field string, n int, required bool) string {
	s := d.str(field, required)
	if s != "" && !isHex(s, n) {
		d.fail(field, "not %d hex digits", n)
	}
	return s
}

// resource reads the resource map. Values that are not strings are
// stringified (numbers keep their JSON text) rather than refused; service.name
// is required because nothing can be attributed without it.
func (d *lineDecoder) resource() map[string]string {
	r, ok := d.obj["resource"]
	if !ok || isNull(r) {
		d.fail("resource.service.name", "required")
		return nil
	}
	m, ok := splitObject(r) // valid already: the line was
	if !ok {
		d.fail("resource", "not an object")
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if isNull(v) {
			continue
		}
		out[k] = stringify(v)
	}
	if out["service.name"] == "" {
		d.fail("resource.service.name", "required")
	}
	return out
}

// PlainString reads a JSON string literal that holds no escape and is valid
// UTF-8 without the decoder: its bytes between the quotes are the string.
// The line it came from was validated whole by json.Unmarshal already.
func PlainString(r []byte) (string, bool) {
	if len(r) < 2 || r[0] != '"' || r[len(r)-1] != '"' {
		return "", false
	}
	in := r[1 : len(r)-1]
	if bytes.IndexByte(in, '\\') >= 0 || !utf8.Valid(in) {
		return "", false
	}
	return string(in), true
}

func stringify(v json.RawMessage) string {
	if s, ok := PlainString(v); ok {
		return s
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) == nil {
		return buf.String()
	}
	return string(v)
}

func (d *lineDecoder) attributes() map[string]json.RawMessage {
	r, ok := d.obj["attributes"]
	if !ok || isNull(r) {
		return nil
	}
	m, ok := splitObject(r) // valid already: the line was
	if !ok {
		d.fail("attributes", "not an object")
		return nil
	}
	return m
}

// parseSpanLine decodes one line of spans.jsonl. Unknown fields are ignored;
// every problem names its field.
func parseSpanLine(line []byte) (Span, []fieldError) {
	d, bad := newLineDecoder(line)
	if bad != nil {
		return Span{}, []fieldError{*bad}
	}
	s := Span{
		Timestamp:     d.time("timestamp"),
		TraceID:       d.hexID("trace_id", 32, true),
		SpanID:        d.hexID("span_id", 16, true),
		ParentSpanID:  d.hexID("parent_span_id", 16, false),
		Name:          d.str("name", true),
		Kind:          int(d.int("kind", 0, 5)),
		DurationNano:  d.int("duration_nano", 0, 1<<62),
		HasError:      d.bool("has_error"),
		StatusCode:    int(d.int("status_code", 0, 2)),
		StatusMessage: d.str("status_message", false),
		Resource:      d.resource(),
		Attributes:    d.attributes(),
	}
	return s, d.errs
}

// parseLogLine decodes one line of logs.jsonl. A body that is not a string
// (OTel allows any value) is kept as its JSON text.
func parseLogLine(line []byte) (Log, []fieldError) {
	d, bad := newLineDecoder(line)
	if bad != nil {
		return Log{}, []fieldError{*bad}
	}
	l := Log{
		Timestamp:    d.time("timestamp"),
		SeverityText: d.str("severity_text", false),
		TraceID:      d.hexID("trace_id", 32, false),
		SpanID:       d.hexID("span_id", 16, false),
		Resource:     d.resource(),
		Attributes:   d.attributes(),
	}
	if r, ok := d.obj["body"]; ok && !isNull(r) {
		l.Body = stringify(r)
	}
	return l, d.errs
}

// readJSONL calls parse for each non-blank line of r with its 1-based number.
func readJSONL(r io.Reader, file string, ps *problems, parse func(line []byte, n int)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		parse(line, n)
	}
	if err := sc.Err(); err != nil {
		ps.addf(file, n+1, "", "unreadable: %v", err)
	}
}
