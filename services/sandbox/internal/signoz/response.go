package signoz

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	// segmentio's decoder reads the sandbox's SigNoz answers with a third
	// of encoding/json's allocations (BenchmarkDecode); every query's
	// answer is decoded on the alert → decision path (issue 22).
	"github.com/segmentio/encoding/json"
)

// Errors of decoding.
var (
	// ErrDecode means the body is not a SigNoz query_range response.
	ErrDecode = errors.New("signoz: undecodable response")
)

// Envelope is SigNoz's HTTP response wrapper: {"status": "success", "data": …}
// or {"status": "error", "error": {…}}.
type Envelope struct {
	Status string          `json:"status"`
	Data   json.RawMessage `json:"data"`
	Error  *APIErrorBody   `json:"error"`
}

// APIErrorBody is SigNoz's error object.
type APIErrorBody struct {
	Type    string `json:"type"`
	Code    string `json:"code"`
	Message string `json:"message"`
	URL     string `json:"url"`
	Errors  []struct {
		Message string `json:"message"`
	} `json:"errors"`
	Suggestions []string `json:"suggestions"`
}

// Response is the data of a successful query_range response.
type Response struct {
	Type string `json:"type"`
	Data struct {
		Results []json.RawMessage `json:"results"`
	} `json:"data"`
	// Refused is set, never decoded, where SigNoz refused an optional
	// query (tools.Query.Optional): what it said. The response is empty.
	Refused string `json:"-"`
}

// RawResult is the result of a raw query.
type RawResult struct {
	QueryName string   `json:"queryName"`
	Rows      []RawRow `json:"rows"`
}

// RawRow is one row: a span or a log record.
type RawRow struct {
	Timestamp time.Time      `json:"timestamp"`
	Data      map[string]any `json:"data"`
}

// ScalarResult is the result of a scalar query: a table.
type ScalarResult struct {
	QueryName string   `json:"queryName"`
	Columns   []Column `json:"columns"`
	Data      [][]any  `json:"data"`
}

// Column describes one column of a scalar table.
type Column struct {
	Name             string `json:"name"`
	QueryName        string `json:"queryName"`
	AggregationIndex int    `json:"aggregationIndex"`
	ColumnType       string `json:"columnType"`
}

// TimeSeriesResult is the result of a time_series query.
type TimeSeriesResult struct {
	QueryName    string              `json:"queryName"`
	Aggregations []AggregationBucket `json:"aggregations"`
}

// AggregationBucket holds the series of one aggregation.
type AggregationBucket struct {
	Index  int      `json:"index"`
	Alias  string   `json:"alias"`
	Series []Series `json:"series"`
}

// Series is one labelled series.
type Series struct {
	Labels []Label  `json:"labels"`
	Values []Sample `json:"values"`
}

// Label is one series label.
type Label struct {
	Key   FieldKey `json:"key"`
	Value any      `json:"value"`
}

// Sample is one point; Value is NaN when SigNoz sent "NaN", "Inf" or nothing usable.
type Sample struct {
	Timestamp int64 // Unix milliseconds
	Value     float64
	Partial   bool
}

// UnmarshalJSON accepts SigNoz's numbers and its "NaN"/"Inf"/"-Inf" strings.
// A sample as SigNoz writes it is read in place (readSample); any other
// form goes through the general decoder.
func (s *Sample) UnmarshalJSON(b []byte) error {
	if v, ok := readSample(b); ok {
		*s = v
		return nil
	}
	v, err := decodeSample(b)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// decodeSample reads a sample of any form with the general decoder.
func decodeSample(b []byte) (Sample, error) {
	var v struct {
		Timestamp int64           `json:"timestamp"`
		Value     json.RawMessage `json:"value"`
		Partial   bool            `json:"partial"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return Sample{}, err
	}
	return Sample{Timestamp: v.Timestamp, Value: Number(v.Value), Partial: v.Partial}, nil
}

// readSample reads {"timestamp":<integer>,"value":<number or string
// without escapes>,"partial":<bool>} (keys in any order, each optional,
// no whitespace), the form of every sample of a time series; ok is false
// for anything else. It runs once per sample of every series.
func readSample(b []byte) (s Sample, ok bool) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return Sample{}, false
	}
	rest := b[1 : len(b)-1]
	s.Value = math.NaN() // no value at all reads as NaN, as Number(nil) does
	for len(rest) > 0 {
		var key, val []byte
		if key, val, rest, ok = samplePair(rest); !ok {
			return Sample{}, false
		}
		switch string(key) {
		case "timestamp":
			n, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil || !jsonNumber(val) {
				return Sample{}, false
			}
			s.Timestamp = n
		case "value":
			if val[0] != '"' && string(val) != "null" && !jsonNumber(val) {
				return Sample{}, false
			}
			s.Value = Number(val)
		case "partial":
			if string(val) != "true" && string(val) != "false" {
				return Sample{}, false
			}
			s.Partial = string(val) == "true"
		default:
			return Sample{}, false
		}
	}
	return s, true
}

// samplePair splits the first "key":value of b, a value that holds no
// comma, brace, bracket or backslash, from what follows its comma.
func samplePair(b []byte) (key, val, rest []byte, ok bool) {
	if len(b) < 4 || b[0] != '"' {
		return nil, nil, nil, false
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 || len(b) < end+3 || b[end+2] != ':' {
		return nil, nil, nil, false
	}
	key, b = b[1:end+1], b[end+3:]
	n := bytes.IndexByte(b, ',')
	if n < 0 {
		n = len(b)
	}
	val = b[:n]
	if len(val) == 0 || bytes.ContainsAny(val, "{}[]\\") || val[0] == '"' && (len(val) < 2 || val[len(val)-1] != '"' || bytes.IndexByte(val[1:len(val)-1], '"') >= 0) {
		return nil, nil, nil, false
	}
	for _, c := range val {
		if c < 0x20 { // a control character: not JSON
			return nil, nil, nil, false
		}
	}
	if n < len(b) {
		n++
		if n == len(b) {
			return nil, nil, nil, false // a trailing comma
		}
	}
	return key, val, b[n:], true
}

// jsonNumber reports whether b is exactly one JSON number.
func jsonNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	return jsonExponent(b[i:])
}

// jsonExponent reports whether b is empty or a JSON number's exponent.
func jsonExponent(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	if b[0] != 'e' && b[0] != 'E' {
		return false
	}
	i := 1
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	j := digits(b, i)
	return j > i && j == len(b)
}

// digits returns the index of the first byte of b from i on that is not a
// decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// Number reads a JSON number or numeric string; anything else is NaN. A
// number or a string without escapes is read in place: it runs once per
// sample of every series.
func Number(raw json.RawMessage) float64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return math.NaN()
	}
	if c := raw[0]; c == '-' || c >= '0' && c <= '9' {
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return f
		}
		return math.NaN()
	}
	var s string
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		s = string(raw[1 : len(raw)-1])
	} else if json.Unmarshal(raw, &s) != nil {
		return math.NaN()
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return math.NaN()
}

// ToFloat converts a decoded JSON value to a float; ok is false when it is not
// a finite number (or a numeric string).
func ToFloat(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(x, 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Decode parses a query_range body: the envelope, then the response. A
// "status":"error" body becomes an *APIError.
func Decode(body []byte) (Response, error) {
	var env Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return Response{}, fmt.Errorf("%w: %v", ErrDecode, err)
	}
	if env.Status == "error" || env.Error != nil {
		return Response{}, newAPIError(0, env.Error)
	}
	if env.Status != "success" {
		return Response{}, fmt.Errorf("%w: status %q", ErrDecode, env.Status)
	}
	var r Response
	if err := json.Unmarshal(env.Data, &r); err != nil {
		return Response{}, fmt.Errorf("%w: data: %v", ErrDecode, err)
	}
	return r, nil
}

// Raw decodes every result as a raw result.
func (r Response) Raw() ([]RawResult, error) { return decodeAll[RawResult](r, RequestRaw) }

// Scalar decodes every result as a scalar table.
func (r Response) Scalar() ([]ScalarResult, error) { return decodeAll[ScalarResult](r, RequestScalar) }

// TimeSeries decodes every result as time series.
func (r Response) TimeSeries() ([]TimeSeriesResult, error) {
	return decodeAll[TimeSeriesResult](r, RequestTimeSeries)
}

func decodeAll[T any](r Response, want string) ([]T, error) {
	if r.Type != "" && r.Type != want {
		return nil, fmt.Errorf("%w: response type %q, want %q", ErrDecode, r.Type, want)
	}
	out := make([]T, 0, len(r.Data.Results))
	for i, raw := range r.Data.Results {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("%w: result %d: %v", ErrDecode, i, err)
		}
		out = append(out, v)
	}
	return out, nil
}
