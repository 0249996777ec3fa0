package webhook

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"agentk/platform/mutant"
)

// The hand decoder reads a webhook body in one pass, without reflection,
// for the fields Parse reads: encoding/json's decoding of the body and of
// each alert was the largest of the ingester's own costs an alert
// (issue 36). It gives encoding/json's result or declines: on anything it
// does not read exactly as encoding/json would (a null, a map of other
// values, a member named twice or in another case, an escaped or
// non-ASCII member name, a surrogate escape, an invalid UTF-8 byte, a
// number where an int is wanted that is not a plain integer) and on
// anything encoding/json refuses, it declines, and Parse decodes the body
// with encoding/json as before, with its errors. FuzzHandDecode holds it
// to encoding/json. The strings it reads without an escape are substrings
// of one copy of the body, not a copy each: the alerts Parse returns keep
// that copy alive, and nothing the ingester holds after a request does
// (it keeps ids it derives, not labels).

// handAlert is one alert of a body as decodeHand read it, with its raw
// bytes (encoding/json's json.RawMessage of the element).
type handAlert struct {
	alert
	labels, annotations map[string]string
	raw                 []byte
}

// bodyFields and alertFields are the members of body and alert, by their
// JSON names.
var (
	bodyFields  = []string{"receiver", "status", "alerts", "groupLabels", "commonLabels", "commonAnnotations", "externalURL", "version", "groupKey", "truncatedAlerts"}
	alertFields = []string{"status", "labels", "annotations", "startsAt", "endsAt", "generatorURL", "fingerprint"}
)

// maxHandDepth bounds the nesting of an unknown member's value the hand
// decoder skips; a deeper one is left to encoding/json.
const maxHandDepth = 64

// reader is the hand decoder's position in a body.
type reader struct {
	b []byte
	i int
	// s is b as a string: a string value with no escape is a substring
	// of it, not a copy of its own.
	s string
	// key is where the name of the member members reads starts in b.
	key int
}

// decodeHand decodes body b: its alerts (nil when the body has no
// "alerts"), with their maps; the group and common maps are checked to be
// objects of strings and dropped. ok is false when it declines.
func decodeHand(b []byte) (alerts []handAlert, ok bool) {
	r := reader{b: b, s: string(b)}
	var seen uint32
	ok = r.members(func(k []byte, plain bool) bool {
		f := fieldIndex(k, plain, bodyFields)
		if f < 0 {
			return f == unknownField && r.skip(0)
		}
		if seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		switch bodyFields[f] {
		case "alerts":
			var ok bool
			alerts, ok = r.alerts()
			return ok
		case "groupLabels", "commonLabels", "commonAnnotations":
			return r.stringObject(nil)
		case "truncatedAlerts":
			return r.integer()
		default:
			_, ok := r.string()
			return ok
		}
	})
	r.ws()
	return alerts, ok && r.i == len(b)
}

// alerts reads the array of alerts, each an object.
func (r *reader) alerts() ([]handAlert, bool) {
	if !r.byte('[') {
		return nil, false
	}
	out := make([]handAlert, 0, 1)
	r.ws()
	if r.byte(']') {
		return out, true
	}
	for {
		r.ws()
		start := r.i
		a, ok := r.alert()
		if !ok {
			return nil, false
		}
		a.raw = r.b[start:r.i]
		out = append(out, a)
		r.ws()
		if r.byte(']') {
			return out, true
		}
		if !r.byte(',') {
			return nil, false
		}
	}
}

// alert reads one alert object.
func (r *reader) alert() (handAlert, bool) {
	var a handAlert
	var seen uint32
	ok := r.members(func(k []byte, plain bool) bool {
		f := fieldIndex(k, plain, alertFields)
		if f < 0 {
			return f == unknownField && r.skip(0)
		}
		if seen&(1<<f) != 0 {
			return false
		}
		seen |= 1 << f
		var ok bool
		switch alertFields[f] {
		case "labels":
			a.labels = map[string]string{}
			return r.stringObject(a.labels)
		case "annotations":
			a.annotations = map[string]string{}
			return r.stringObject(a.annotations)
		case "status":
			a.Status, ok = r.string()
		case "startsAt":
			a.StartsAt, ok = r.stringPtr()
		case "endsAt":
			a.EndsAt, ok = r.stringPtr()
		case "generatorURL":
			a.GeneratorURL, ok = r.string()
		case "fingerprint":
			a.Fingerprint, ok = r.string()
		}
		return ok
	})
	return a, ok
}

// unknownField and foldedField are fieldIndex's answers for a name that is
// none of the fields, and for one encoding/json could match to a field
// although it is not spelt as one (another case, an escape, Unicode
// folding).
const (
	unknownField = -1
	foldedField  = -2
)

// fieldIndex is the index of the member name k in names; k is plain when
// it is ASCII with no escape.
func fieldIndex(k []byte, plain bool, names []string) int {
	for i, n := range names {
		if string(k) == n {
			return i
		}
	}
	if mutant.Off(mutant.IngestHandDecodeFold) {
		return unknownField
	}
	if !plain {
		return foldedField
	}
	for _, n := range names {
		if bytes.EqualFold(k, []byte(n)) {
			return foldedField
		}
	}
	return unknownField
}

// members reads an object, calling member with each member's raw name
// (plain: ASCII, no escape) with the reader at its value.
func (r *reader) members(member func(k []byte, plain bool) bool) bool {
	r.ws()
	if !r.byte('{') {
		return false
	}
	r.ws()
	if r.byte('}') {
		return true
	}
	for {
		r.ws()
		k, start, esc, ascii, ok := r.rawString()
		if !ok {
			return false
		}
		r.ws()
		if !r.byte(':') {
			return false
		}
		r.ws()
		r.key = start
		if !member(k, !esc && ascii) {
			return false
		}
		r.ws()
		if r.byte('}') {
			return true
		}
		if !r.byte(',') {
			return false
		}
	}
}

// stringObject reads an object of strings into m (m nil: checks it only).
func (r *reader) stringObject(m map[string]string) bool {
	return r.members(func(k []byte, _ bool) bool {
		key, ok := r.s[r.key:r.key+len(k)], true
		if bytes.IndexByte(k, '\\') >= 0 {
			key, ok = decodeString(k, false)
		}
		if !ok {
			return false
		}
		v, ok := r.string()
		if ok && m != nil {
			m[key] = v
		}
		return ok
	})
}

// string reads a string value.
func (r *reader) string() (string, bool) {
	raw, start, esc, ascii, ok := r.rawString()
	switch {
	case !ok:
		return "", false
	case !esc:
		return r.s[start : start+len(raw)], true // checked UTF-8 by rawString
	}
	return decodeString(raw, !esc && ascii)
}

// stringPtr reads a string value into a new string.
func (r *reader) stringPtr() (*string, bool) {
	s, ok := r.string()
	if !ok {
		return nil, false
	}
	return &s, true
}

// rawString reads a string, returning its bytes between the quotes and
// where they start in r.b: esc
// when it holds an escape, ascii when every byte is. Its escapes are
// checked; a control character or invalid UTF-8 declines.
func (r *reader) rawString() (raw []byte, start int, esc, ascii, ok bool) {
	if !r.byte('"') {
		return nil, 0, false, false, false
	}
	start = r.i
	ascii = true
	for i := start; i < len(r.b); i++ {
		switch c := r.b[i]; {
		case c == '"':
			r.i = i + 1
			raw = r.b[start:i]
			return raw, start, esc, ascii, ascii || utf8.Valid(raw)
		case c == '\\':
			n := escapeLen(r.b[i+1:])
			if n == 0 {
				return nil, 0, false, false, false
			}
			esc = true
			i += n
		case c < 0x20:
			return nil, 0, false, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, 0, false, false, false
}

// escapeLen is the length of the escape whose backslash precedes b, less
// the backslash; 0 when it is not one.
func escapeLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if len(b) < 5 {
			return 0
		}
		if _, err := strconv.ParseUint(string(b[1:5]), 16, 16); err != nil {
			return 0
		}
		return 5
	}
	return 0
}

// decodeString is the string whose raw bytes (checked by rawString) are
// raw; plain when they are ASCII with no escape. A surrogate escape, which
// encoding/json pairs or replaces, declines.
func decodeString(raw []byte, plain bool) (string, bool) {
	if plain || bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), true
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			v, _ := strconv.ParseUint(string(raw[i+1:i+5]), 16, 16)
			if utf16.IsSurrogate(rune(v)) {
				return "", false
			}
			out = utf8.AppendRune(out, rune(v))
			i += 4
		default: // " \ /
			out = append(out, raw[i])
		}
	}
	return string(out), true
}

// integer reads a number that encoding/json decodes into an int the same
// way: an integer of at most 18 digits, no fraction or exponent.
func (r *reader) integer() bool {
	start := r.i
	r.byte('-')
	digits := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	n := r.i - digits
	if n == 0 || n > 18 || n > 1 && r.b[digits] == '0' {
		return false
	}
	if r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		return false
	}
	return r.i > start
}

// skip reads any JSON value, depth levels deep, checking its syntax.
func (r *reader) skip(depth int) bool {
	if depth > maxHandDepth || r.i >= len(r.b) {
		return false
	}
	switch c := r.b[r.i]; {
	case c == '"':
		_, _, _, _, ok := r.rawString()
		return ok
	case c == '{':
		return r.members(func([]byte, bool) bool { return r.skip(depth + 1) })
	case c == '[':
		return r.skipArray(depth)
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(r.b[r.i:], []byte(lit)) {
			r.i += len(lit)
			return true
		}
	}
	return false
}

// skipArray reads an array of any values.
func (r *reader) skipArray(depth int) bool {
	r.i++ // [
	r.ws()
	if r.byte(']') {
		return true
	}
	for {
		r.ws()
		if !r.skip(depth + 1) {
			return false
		}
		r.ws()
		if r.byte(']') {
			return true
		}
		if !r.byte(',') {
			return false
		}
	}
}

// number reads a JSON number.
func (r *reader) number() bool {
	r.byte('-')
	switch {
	case r.byte('0'):
	case r.digits() == 0:
		return false
	}
	if r.byte('.') && r.digits() == 0 {
		return false
	}
	if r.byte('e') || r.byte('E') {
		if !r.byte('+') {
			r.byte('-')
		}
		if r.digits() == 0 {
			return false
		}
	}
	return true
}

// digits reads decimal digits and says how many.
func (r *reader) digits() int {
	start := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i - start
}

// byte reads c if it is next.
func (r *reader) byte(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// ws skips JSON whitespace.
func (r *reader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}
