package httpport

import (
	"net/http"
	"strconv"
)

// writeResponse writes resp as writeJSON does, its bytes
// json.NewEncoder's, written without reflection: it is every delivery's
// answer (issue 36). A string that is not plain ASCII, which
// json.Marshal might escape, takes writeJSON.
// TestResponseIsEncoderBytes and FuzzResponse hold it to json.NewEncoder.
func writeResponse(w http.ResponseWriter, resp Response) {
	b, ok := appendResponse(make([]byte, 0, 64+96*len(resp.Alerts)), resp)
	if !ok {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// appendResponse appends json.NewEncoder's encoding of resp, newline
// included; ok is false when a string is not plain.
func appendResponse(b []byte, resp Response) ([]byte, bool) {
	b = append(b, `{"received":`...)
	b = strconv.AppendInt(b, int64(resp.Received), 10)
	b = append(b, `,"alerts":`...)
	if resp.Alerts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, f := range resp.Alerts {
			if i > 0 {
				b = append(b, ',')
			}
			if !plain(f.IncidentID) || !plain(f.Outcome) || !plain(f.Service) {
				return nil, false
			}
			b = append(b, `{"incident_id":"`...)
			b = append(b, f.IncidentID...)
			b = append(b, `","outcome":"`...)
			b = append(b, f.Outcome...)
			b = append(b, '"')
			if f.Service != "" {
				b = append(b, `,"service":"`...)
				b = append(b, f.Service...)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...), true
}

// plain reports that json.Marshal writes s as it is between quotes:
// printable ASCII but for the quote, the backslash and the HTML characters
// it escapes.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
