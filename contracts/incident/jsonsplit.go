package incident

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// splitObject reads the members of the JSON object b as
// json.Unmarshal(b, &map[string]json.RawMessage{}) does (each value's bytes
// without the white space around them, the last of a repeated name kept),
// without decoding it again: b must be valid JSON (json.Valid), as a whole
// line is before its fields are read. Loading the corpus decoded every span
// line once whole and again for its resource and attributes (a tenth of an
// eval's CPU with three investigators). It reports false when b is not an
// object. The values are slices of b.
func splitObject(b []byte) (map[string]json.RawMessage, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, true
	}
	for i < len(b) {
		kEnd := skipString(b, i)
		key, ok := objectKey(b[i:kEnd])
		if !ok {
			return nil, false
		}
		i = skipSpace(b, kEnd)
		i = skipSpace(b, i+1) // the colon
		vEnd := skipValue(b, i)
		m[key] = b[i:vEnd:vEnd]
		i = skipSpace(b, vEnd)
		if i >= len(b) || b[i] == '}' {
			break
		}
		i = skipSpace(b, i+1) // the comma
	}
	return m, true
}

// objectKey is a member name: its bytes when they hold no escape and are
// valid UTF-8, else the decoder's reading of them.
func objectKey(q []byte) (string, bool) {
	if len(q) >= 2 && bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q[1:len(q)-1]) {
		return string(q[1 : len(q)-1]), true
	}
	var k string
	if err := json.Unmarshal(q, &k); err != nil {
		return "", false
	}
	return k, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString is the index after the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue is the index after the value that starts at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
