package webhook

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

// TestJSONBound: the bound is never below the encoding's length, for every
// alert the test data holds and for values built to escape at their worst;
// a value that cannot be encoded is unbounded, so that checkSize encodes
// it and reports the error.
func TestJSONBound(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	worst := strings.Repeat("<>&\u2028\x01\xff\"\\", 50)
	end := at.Add(time.Hour)
	cases := []struct {
		name      string
		a         contracts.AlertV1
		unbounded bool
	}{
		{name: "empty", a: contracts.AlertV1{}},
		{name: "escapes at their worst", a: contracts.AlertV1{IncidentID: worst, AlertName: worst, StartsAt: at, EndsAt: &end,
			Labels: map[string]string{worst: worst, "": ""}, Annotations: map[string]string{"a": worst},
			Links: contracts.AlertLinks{Generator: worst}, Raw: json.RawMessage(`{"a":"` + strings.Repeat(`\u003c`, 40) + `"}`)}},
		{name: "large numbers", a: contracts.AlertV1{BurnRate: -math.MaxFloat64, NoData: true, Test: true}},
		{name: "smallest number", a: contracts.AlertV1{BurnRate: math.SmallestNonzeroFloat64}},
		{name: "NaN burn rate", a: contracts.AlertV1{BurnRate: math.NaN()}, unbounded: true},
		{name: "year past 9999", a: contracts.AlertV1{StartsAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, unbounded: true},
	}
	paths, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		alerts, err := Parse(b, at)
		if err != nil {
			continue // the refused bodies: no alert to bound
		}
		for _, a := range alerts {
			cases = append(cases, struct {
				name      string
				a         contracts.AlertV1
				unbounded bool
			}{name: filepath.Base(p), a: a})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bound := jsonBound(reflect.ValueOf(tc.a))
			if tc.unbounded {
				require.GreaterOrEqual(t, bound, unbounded)
				return
			}
			b, err := json.Marshal(tc.a)
			require.NoError(t, err)
			require.GreaterOrEqual(t, bound, len(b))
			require.Less(t, bound, 16*len(b)+4096, "a bound this loose would let no alert skip the encoding")
		})
	}
}
