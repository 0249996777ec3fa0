package signoz

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// timeSeriesBody is a query_range time_series answer shaped like the
// sandbox's per-minute overview queries: series of one sample per minute
// over two hours, a NaN among them as SigNoz writes one.
func timeSeriesBody(series, minutes int) []byte {
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"type":"time_series","data":{"results":[{"queryName":"A","aggregations":[{"index":0,"alias":"","meta":{},"series":[`)
	for s := range series {
		if s > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"labels":[{"key":{"name":"service.name"},"value":"svc-%d"},{"key":{"name":"has_error"},"value":"true"}],"values":[`, s)
		for m := range minutes {
			if m > 0 {
				b.WriteByte(',')
			}
			switch {
			case m == minutes-1:
				fmt.Fprintf(&b, `{"timestamp":%d,"value":"NaN","partial":true}`, 1764496800000+int64(m)*60000)
			default:
				fmt.Fprintf(&b, `{"timestamp":%d,"value":%d.%d}`, 1764496800000+int64(m)*60000, 40+m%7, m%10)
			}
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}]}]},"meta":{"rowsScanned":10}}}`)
	return []byte(b.String())
}

// BenchmarkDecode measures decoding SigNoz answers as the sandbox does for
// each query: the envelope, then every result.
//
//	go test -run '^$' -bench Decode -benchmem ./internal/signoz/
func BenchmarkDecode(b *testing.B) {
	raw, err := os.ReadFile("testdata/raw_traces.json")
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name   string
		body   []byte
		decode func(Response) error
	}{
		{"time_series", timeSeriesBody(8, 120), func(r Response) error { _, err := r.TimeSeries(); return err }},
		{"raw", raw, func(r Response) error { _, err := r.Raw(); return err }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := Decode(c.body)
				if err != nil {
					b.Fatal(err)
				}
				if err := c.decode(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestNumber(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	cases := []struct {
		name string
		raw  string
		want float64
	}{
		{"integer", `42`, 42},
		{"negative decimal", ` -1.5e2 `, -150},
		{"numeric string", `"0.25"`, 0.25},
		{"escaped numeric string", `"\u0031.5"`, 1.5},
		{"NaN string", `"NaN"`, nan},
		{"Inf string", `"-Inf"`, math.Inf(-1)},
		{"out of range", `1e400`, nan},
		{"word", `"slow"`, nan},
		{"null", `null`, nan},
		{"empty", ``, nan},
		{"bool", `true`, nan},
		{"object", `{"v":1}`, nan},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Number([]byte(c.raw))
			if math.IsNaN(c.want) {
				require.True(t, math.IsNaN(got), "got %v", got)
				return
			}
			require.Equal(t, c.want, got)
		})
	}
}

// sameSample fails unless readSample, when it reads b, reads what the
// general decoder reads, and the general decoder accepts b.
func sameSample(t *testing.T, b []byte) (read bool) {
	t.Helper()
	fast, ok := readSample(b)
	if !ok {
		return false
	}
	slow, err := decodeSample(b)
	require.NoError(t, err, "readSample read %q, which is not JSON", b)
	require.Equal(t, slow.Timestamp, fast.Timestamp)
	require.Equal(t, slow.Partial, fast.Partial)
	require.True(t, slow.Value == fast.Value || math.IsNaN(slow.Value) && math.IsNaN(fast.Value), "value %v, want %v", fast.Value, slow.Value)
	return true
}

func TestReadSample(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		read bool // false: left to the general decoder
	}{
		{"number", `{"timestamp":1764496800000,"value":3.5}`, true},
		{"NaN string partial", `{"timestamp":1764496860000,"value":"NaN","partial":true}`, true},
		{"keys reordered", `{"partial":false,"value":-2e3,"timestamp":0}`, true},
		{"null value", `{"timestamp":1,"value":null}`, true},
		{"empty", `{}`, true},
		{"numeric string", `{"timestamp":1,"value":"12.5"}`, true},
		{"string with a comma", `{"timestamp":1,"value":"1,5"}`, false},
		{"escaped string", `{"timestamp":1,"value":"\u0031"}`, false},
		{"whitespace", `{ "timestamp": 1, "value": 2 }`, false},
		{"unknown key", `{"timestamp":1,"value":2,"extra":3}`, false},
		{"fractional timestamp", `{"timestamp":1.5,"value":2}`, false},
		{"plus sign", `{"timestamp":+1,"value":2}`, false},
		{"leading zero", `{"timestamp":01,"value":2}`, false},
		{"bare word", `{"timestamp":1,"value":NaN}`, false},
		{"bad exponent", `{"timestamp":1,"value":1e}`, false},
		{"signed exponent", `{"timestamp":1,"value":1.5E+2}`, true},
		{"dot without digits", `{"timestamp":1,"value":1.}`, false},
		{"lone minus", `{"timestamp":1,"value":-}`, false},
		{"text after exponent", `{"timestamp":1,"value":1e5x}`, false},
		{"partial not a bool", `{"timestamp":1,"partial":"true"}`, false},
		{"trailing comma", `{"timestamp":1,}`, false},
		{"nested", `{"timestamp":1,"value":{"v":1}}`, false},
		{"control character", "{\"timestamp\":1,\"value\":\"1\x01\"}", false},
		{"not an object", `[1,2]`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.read, sameSample(t, []byte(c.in)))
			var s Sample
			_, slowErr := decodeSample([]byte(c.in))
			if err := s.UnmarshalJSON([]byte(c.in)); slowErr != nil {
				require.Error(t, err, "what the general decoder refuses is refused")
			}
		})
	}
}

// FuzzReadSample: whatever readSample reads, the general decoder reads the same.
func FuzzReadSample(f *testing.F) {
	for _, s := range []string{
		`{"timestamp":1764496800000,"value":3.5}`, `{"timestamp":1,"value":"NaN","partial":true}`,
		`{"value":"1,5"}`, `{"timestamp":01}`, `{"value":-0.0e+1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameSample(t, b) })
}
