package webhook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// handCases are bodies the hand decoder must read (hand) or leave to
// encoding/json; every one must parse the same either way.
var handCases = []struct {
	name string
	body string
	hand bool
}{
	{"usual", `{"receiver":"r","status":"firing","alerts":[{"status":"firing","labels":{"service.name":"shop","alertname":"a"},"annotations":{"burn_rate":"3"},"startsAt":"2026-11-30T10:00:00Z"}],"groupLabels":{"a":"b"},"truncatedAlerts":0}`, true},
	{"spaces around everything", " {\n\"alerts\" : [ {\"status\":\"firing\" , \"labels\" : { \"a\" : \"1\" } ,\"startsAt\":\"2026-11-30T10:00:00Z\"} , {\"status\":\"resolved\",\"labels\":{},\"startsAt\":\"2026-11-30T10:00:00Z\",\"endsAt\":\"2026-11-30T10:05:00Z\"} ] }\t", true},
	{"escapes", `{"alerts":[{"status":"firing","labels":{"a\n":"\u00e9\"\\\/\b\f\r\t","alertname":"caf\u00e9"},"startsAt":"2026-11-30T10:00:00Z"}]}`, true},
	{"unknown members of any kind", `{"x":[1,-2.5e3,true,false,null,{"y":[]}],"alerts":[{"status":"firing","z":{"q":0.1},"labels":{"a":"1"},"startsAt":"2026-11-30T10:00:00Z"}]}`, true},
	{"no alerts", `{"receiver":"r"}`, true},
	{"empty alerts", `{"alerts":[]}`, true},
	{"a status neither", `{"alerts":[{"status":"pending","labels":{"a":"1"},"startsAt":"2026-11-30T10:00:00Z"}]}`, true},
	{"no labels", `{"alerts":[{"status":"firing","startsAt":"2026-11-30T10:00:00Z"}]}`, true},
	{"a null label", `{"alerts":[{"status":"firing","labels":{"a":"1","b":null},"startsAt":"2026-11-30T10:00:00Z"}]}`, false},
	{"a number label", `{"alerts":[{"status":"firing","labels":{"a":1},"startsAt":"2026-11-30T10:00:00Z"}]}`, false},
	{"a null startsAt", `{"alerts":[{"status":"firing","labels":{"a":"1"},"startsAt":null}]}`, false},
	{"a null alert", `{"alerts":[null]}`, false},
	{"alerts twice", `{"alerts":[],"alerts":[{"status":"firing","labels":{"a":"1"},"startsAt":"2026-11-30T10:00:00Z"}]}`, false},
	{"labels twice", `{"alerts":[{"status":"firing","labels":{"a":"1"},"labels":{"b":"2"},"startsAt":"2026-11-30T10:00:00Z"}]}`, false},
	{"labels in another case", `{"alerts":[{"status":"firing","labels":{"a":"1"},"Labels":{"b":"2"},"startsAt":"2026-11-30T10:00:00Z"}]}`, false},
	{"alerts in another case", `{"ALERTS":[{"status":"firing","labels":{"a":"1"},"startsAt":"2026-11-30T10:00:00Z"}]}`, false},
	{"a name escaped", `{"alerts":[{"status":"firing","\u006cabels":{"b":"2"},"startsAt":"2026-11-30T10:00:00Z"}]}`, false},
	{"a name folded", `{"alerts":[{"status":"firing","label` + "\u017f" + `":{"b":"2"},"startsAt":"2026-11-30T10:00:00Z"}]}`, false},
	{"a surrogate pair", `{"alerts":[{"status":"firing","labels":{"a":"\ud83d\ude00"},"startsAt":"2026-11-30T10:00:00Z"}]}`, false},
	{"invalid UTF-8", "{\"alerts\":[{\"status\":\"firing\",\"labels\":{\"a\":\"\xff\"},\"startsAt\":\"2026-11-30T10:00:00Z\"}]}", false},
	{"truncatedAlerts a fraction", `{"truncatedAlerts":1.5,"alerts":[]}`, false},
	{"truncatedAlerts huge", `{"truncatedAlerts":1234567890123456789012,"alerts":[]}`, false},
	{"truncatedAlerts negative", `{"truncatedAlerts":-3,"alerts":[]}`, true},
	{"receiver a number", `{"receiver":1,"alerts":[]}`, false},
	{"groupLabels of numbers", `{"groupLabels":{"a":1},"alerts":[]}`, false},
	{"trailing data", `{"alerts":[]} x`, false},
	{"a trailing comma", `{"alerts":[],}`, false},
	{"not an object", `[]`, false},
	{"empty", ``, false},
	{"a control character", "{\"alerts\":[{\"status\":\"fir\ning\"}]}", false},
	{"a bad escape", `{"alerts":[{"status":"\x"}]}`, false},
	{"a bad number", `{"x":01,"alerts":[]}`, false},
	{"deep", `{"x":` + repeat("[", maxHandDepth+2) + repeat("]", maxHandDepth+2) + `,"alerts":[]}`, false},
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

// TestHandDecodeIsEncodingJSON: the hand decoder reads the bodies it
// should, declines the others, and Parse gives the same result either way.
func TestHandDecodeIsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range handCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, ok := decodeHand([]byte(tc.body))
			require.Equal(t, tc.hand, ok)
			requireSameParse(t, []byte(tc.body))
		})
	}
}

// requireSameParse checks that Parse with the hand decoder and with
// encoding/json alone give the same alerts or the same error, and that
// the hand decoder declines every body encoding/json refuses.
func requireSameParse(t *testing.T, b []byte) {
	t.Helper()
	got, gotErr := parse(b, handReceived, true)
	want, wantErr := parse(b, handReceived, false)
	if wantErr != nil {
		require.Error(t, gotErr)
		require.Equal(t, wantErr.Error(), gotErr.Error())
	} else {
		require.NoError(t, gotErr)
		require.Equal(t, want, got)
	}
	alerts, ok := decodeHand(b)
	var bd body
	if err := json.Unmarshal(b, &bd); err != nil {
		require.False(t, ok, "encoding/json refuses the body: %v", err)
		return
	}
	if !ok {
		return
	}
	require.Equal(t, bd.Alerts == nil, alerts == nil)
	require.Len(t, alerts, len(bd.Alerts))
	for i, a := range alerts {
		require.Equal(t, string(bd.Alerts[i]), string(a.raw), "alerts[%d]'s raw bytes", i)
	}
}

// FuzzHandDecode: on any body, Parse with the hand decoder gives what
// encoding/json alone gives (the same alerts or the same error), and the
// hand decoder declines whatever encoding/json refuses.
func FuzzHandDecode(f *testing.F) {
	for _, name := range []string{"signoz-threshold.json", "signoz-test-notification.json", "signoz-nodata.json", "signoz-resolved.json", "alertmanager-prometheus.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(f, err)
		f.Add(b)
	}
	for _, tc := range handCases {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		requireSameParse(t, b)
	})
}

// handReceived is the receive time of the bodies the hand decoder is tried on.
var handReceived = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

// BenchmarkParse: Parse of SigNoz's threshold alert with the hand decoder
// and with encoding/json alone, CPU time and allocations an alert.
//
//	go test -run '^$' -bench Parse -benchmem ./services/ingester/webhook
func BenchmarkParse(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("testdata", "signoz-threshold.json"))
	require.NoError(b, err)
	for _, tc := range []struct {
		name string
		hand bool
	}{{"encoding_json", false}, {"hand", true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				if _, err := parse(body, handReceived, tc.hand); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}

// cpuTime is the process's CPU time (user and system): under a load that
// makes wall-clock times meaningless, it is what a benchmark can compare.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestHandDecodeOnTheCorpus: every recorded alert of the incident corpus
// (e2e/incidents, written for other tests) parses the same with the hand
// decoder as with encoding/json alone, and the hand decoder reads each
// one itself.
func TestHandDecodeOnTheCorpus(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("..", "..", "..", "e2e", "incidents", "*", "alert.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		requireSameParse(t, b)
		_, ok := decodeHand(b)
		require.True(t, ok, "%s is left to encoding/json", p)
	}
}
