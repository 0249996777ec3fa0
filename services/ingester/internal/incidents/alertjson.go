package incidents

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"agentk/contracts"
)

// MarshalAlert is json.Marshal(a), byte for byte, written without
// reflection: an alert is encoded once, for its record and its publication
// (and by the Publisher when the index did not), and encoding/json's
// reflection was a tenth of the ingester's CPU an alert (issue 36). TestMarshalAlertIsJSONMarshal and
// FuzzMarshalAlert hold it to json.Marshal's bytes, and
// TestMarshalAlertKnowsEveryField fails when AlertV1 gains a field it does
// not write.
func MarshalAlert(a contracts.AlertV1) ([]byte, error) {
	if math.IsNaN(a.BurnRate) || math.IsInf(a.BurnRate, 0) {
		return json.Marshal(a) // json.Marshal's error
	}
	b := make([]byte, 0, alertSize(a))
	b = append(b, `{"incident_id":`...)
	b = appendString(b, a.IncidentID)
	b = append(b, `,"status":`...)
	b = appendString(b, a.Status)
	b = append(b, `,"service":`...)
	b = appendString(b, a.Service)
	b = append(b, `,"rule_id":`...)
	b = appendString(b, a.RuleID)
	b = append(b, `,"alert_name":`...)
	b = appendString(b, a.AlertName)
	if a.Severity != "" {
		b = append(b, `,"severity":`...)
		b = appendString(b, a.Severity)
	}
	var err error
	b = append(b, `,"starts_at":`...)
	if b, err = appendTime(b, a.StartsAt); err != nil {
		return json.Marshal(a)
	}
	if a.EndsAt != nil {
		b = append(b, `,"ends_at":`...)
		if b, err = appendTime(b, *a.EndsAt); err != nil {
			return json.Marshal(a)
		}
	}
	b = append(b, `,"burn_rate":`...)
	b = appendFloat(b, a.BurnRate)
	if a.BurnRateSource != "" {
		b = append(b, `,"burn_rate_source":`...)
		b = appendString(b, a.BurnRateSource)
	}
	if a.NoData {
		b = append(b, `,"no_data":true`...)
	}
	if a.Test {
		b = append(b, `,"test":true`...)
	}
	if a.Fingerprint != "" {
		b = append(b, `,"fingerprint":`...)
		b = appendString(b, a.Fingerprint)
	}
	if len(a.Labels) > 0 {
		b = append(b, `,"labels":`...)
		b = appendMap(b, a.Labels)
	}
	if len(a.Annotations) > 0 {
		b = append(b, `,"annotations":`...)
		b = appendMap(b, a.Annotations)
	}
	b = append(b, `,"links":{`...)
	sep := ""
	for _, f := range []struct{ name, v string }{
		{`"generator":`, a.Links.Generator}, {`"related_traces":`, a.Links.RelatedTraces}, {`"related_logs":`, a.Links.RelatedLogs},
	} {
		if f.v != "" {
			b = append(b, sep...)
			b = append(b, f.name...)
			b = appendString(b, f.v)
			sep = ","
		}
	}
	b = append(b, `},"received_at":`...)
	if b, err = appendTime(b, a.ReceivedAt); err != nil {
		return json.Marshal(a)
	}
	if len(a.Raw) > 0 {
		b = append(b, `,"raw":`...)
		if b, err = appendRaw(b, a.Raw); err != nil {
			return json.Marshal(a) // json.Marshal's error
		}
	}
	return append(b, '}'), nil
}

// alertSize is about the length of a's encoding, so that MarshalAlert's
// buffer is allocated once: the field names and punctuation, and the
// strings, maps and raw alert as they are (an escape lengthens a string; the
// buffer then grows as append grows it). With 512 bytes besides the raw
// alert, SigNoz's labels and annotations made the buffer grow, copying it
// once an alert.
func alertSize(a contracts.AlertV1) int {
	n := 320 + len(a.IncidentID) + len(a.Status) + len(a.Service) + len(a.RuleID) + len(a.AlertName) +
		len(a.Severity) + len(a.BurnRateSource) + len(a.Fingerprint) + len(a.Links.Generator) +
		len(a.Links.RelatedTraces) + len(a.Links.RelatedLogs) + len(a.Raw)
	for _, m := range []map[string]string{a.Labels, a.Annotations} {
		for k, v := range m {
			n += len(k) + len(v) + 6 // "k":"v",
		}
	}
	return n
}

// appendRaw appends raw compacted and HTML-escaped, as json.Marshal(a)
// encodes a json.RawMessage: raw itself when it is valid JSON that its
// compaction leaves as it is (a body as senders encode it), without
// encoding/json's copies of it.
func appendRaw(b, raw []byte) ([]byte, error) {
	if json.Valid(raw) && compact(raw) {
		return append(b, raw...), nil
	}
	enc, err := json.Marshal(json.RawMessage(raw))
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// compact reports that json.Marshal's compaction of the valid JSON raw
// leaves it as it is: no whitespace outside its strings, and in them no
// HTML character it escapes (<, >, &) and no U+2028 or U+2029 (whose
// first byte is 0xe2).
func compact(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case in && c == '\\':
			i++ // the escaped byte, ASCII: an escape's rest is too
		case c == '"':
			in = !in
		case c == '<' || c == '>' || c == '&' || c == 0xe2:
			return false
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

// appendTime is time.Time's MarshalJSON.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

// appendFloat is encoding/json's float64 encoding of a finite f.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendMap is encoding/json's encoding of a map of strings: keys sorted.
func appendMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendString(b, m[k])
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString is encoding/json's encoding of a string, HTML-escaped as
// json.Marshal does: <, > and & as \u003c…, an invalid byte as \ufffd,
// U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
