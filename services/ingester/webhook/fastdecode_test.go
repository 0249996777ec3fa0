package webhook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFastDecodeIsGeneral: an alert decoded in one pass (decodeFast) gives
// what the general path gives, and an alert the one pass could decode
// differently (a null, a map of other values, a field named twice in any
// case or escaped) is left to the general path.
func TestFastDecodeIsGeneral(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		raw  string
		fast bool
	}{
		{"usual", `{"status":"firing","labels":{"service.name":"shop","alertname":"a"},"annotations":{"burn_rate":"3"},"startsAt":"2026-11-30T10:00:00Z"}`, true},
		{"empty maps", `{"status":"firing","labels":{},"annotations":{},"startsAt":"2026-11-30T10:00:00Z"}`, true},
		{"no annotations", `{"status":"firing","labels":{"a":"1"},"startsAt":"2026-11-30T10:00:00Z"}`, true},
		{"a null value", `{"status":"firing","labels":{"a":"1","b":null},"startsAt":"2026-11-30T10:00:00Z"}`, false},
		{"a number value", `{"status":"firing","labels":{"a":1},"startsAt":"2026-11-30T10:00:00Z"}`, false},
		{"labels twice", `{"status":"firing","labels":{"a":"1"},"labels":{"b":"2"},"startsAt":"2026-11-30T10:00:00Z"}`, false},
		{"labels twice, other case", `{"status":"firing","labels":{"a":"1"},"Labels":{"b":"2"},"startsAt":"2026-11-30T10:00:00Z"}`, false},
		{"annotations twice", `{"status":"firing","labels":{"a":"1"},"annotations":{"x":"1"},"ANNOTATIONS":{"y":"2"},"startsAt":"2026-11-30T10:00:00Z"}`, false},
		{"labels escaped", `{"status":"firing","labels":{"a":"1"},"\u006cabels":{"b":"2"},"startsAt":"2026-11-30T10:00:00Z"}`, false},
		{"labels folded", `{"status":"firing","labels":{"a":"1"},"label` + "\u017f" + `":{"b":"2"},"startsAt":"2026-11-30T10:00:00Z"}`, false},
		{"labels a string", `{"status":"firing","labels":"a","startsAt":"2026-11-30T10:00:00Z"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, ok := decodeFast(json.RawMessage(tc.raw))
			require.Equal(t, tc.fast, ok)
			requireSameDecoding(t, []byte(tc.raw))
		})
	}
}

// requireSameDecoding checks that decodeAlert, fast path included, agrees
// with the general path on raw: the same alert, or the same error.
func requireSameDecoding(t *testing.T, raw []byte) {
	t.Helper()
	got, gotErr := decodeAlert(raw, "alerts[0]")
	want, wantErr := decodeGeneral(raw, "alerts[0]")
	if wantErr != nil {
		require.Error(t, gotErr)
		require.Equal(t, wantErr.Error(), gotErr.Error())
		return
	}
	require.NoError(t, gotErr)
	// The raw maps are the general path's own step; only the decoded
	// maps are read after decodeAlert.
	want.Labels, want.Annotations, got.Labels, got.Annotations = nil, nil, nil, nil
	require.Equal(t, want, got)
}

// FuzzFastDecode: on any alert object, decodeAlert (which tries the one
// pass first) and the general path agree.
func FuzzFastDecode(f *testing.F) {
	for _, name := range []string{"signoz-threshold.json", "alertmanager-prometheus.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(f, err)
		var bd body
		require.NoError(f, json.Unmarshal(b, &bd))
		for _, a := range bd.Alerts {
			f.Add([]byte(a))
		}
	}
	f.Add([]byte(`{"status":"firing","labels":{"a":"1"},"Labels":{"b":"2"},"startsAt":"2026-11-30T10:00:00Z"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // Parse hands decodeAlert only the elements of a valid body
		}
		requireSameDecoding(t, raw)
	})
}
