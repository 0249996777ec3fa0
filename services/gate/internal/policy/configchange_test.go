package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// TestRuntimeConfigChangeDenies: a deployment-class diagnosis is denied
// when the service logged a runtime configuration change at the onset
// (10:05), at least a minute after the ledger's start of v2 (10:02): a
// flag flipped three minutes after the release (e2e/incidents-heldout9's
// flag-flip trap and its twin). Red with gate.runtime_config_change.
func TestRuntimeConfigChangeDenies(t *testing.T) {
	m := func(hh, mm int, n int64) contracts.LogMinute {
		return contracts.LogMinute{At: time.Date(2026, 11, 30, hh, mm, 0, 0, time.UTC), Logs: n}
	}
	for _, tc := range []struct {
		name     string
		class    string
		minutes  []contracts.LogMinute
		allow    bool
		contains []string
	}{
		{"a flag changed in the onset's minute", "bad_release", []contracts.LogMinute{m(10, 5, 3)}, false,
			[]string{"shop-api logged 3 runtime configuration change(s)", "from the minute 2026-11-30T10:05:00Z, at the onset 2026-11-30T10:05:00Z and 3m0s after \"v2\" started (the ledger: 2026-11-30T10:02:00Z)", "cannot be told from a release of shop-api"}},
		{"on a configuration release", "config_regression", []contracts.LogMinute{m(10, 4, 1)}, false, []string{"logged 1 runtime"}},
		{"on a retry storm", "retry_storm", []contracts.LogMinute{m(10, 6, 2)}, false, []string{"logged 2 runtime"}},
		{"three minutes before the onset, the release's first minute left out", "bad_release", []contracts.LogMinute{m(10, 2, 5), m(10, 3, 1)}, false, []string{"logged 1 runtime", "from the minute 2026-11-30T10:03:00Z"}},
		{"in the release's first minute only", "bad_release", []contracts.LogMinute{m(10, 2, 5)}, true, nil},
		{"long before the onset", "bad_release", []contracts.LogMinute{m(9, 50, 5)}, true, nil},
		{"after the onset's next minute", "bad_release", []contracts.LogMinute{m(10, 7, 4)}, true, nil},
		{"none", "bad_release", nil, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.ConfigChanges = tc.minutes
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.allow {
				require.NotContains(t, dep.Reason, "runtime configuration change")
				if tc.class == "bad_release" {
					require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				}
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			for _, s := range tc.contains {
				require.Contains(t, dep.Reason, s)
			}
		})
	}
}

// TestRuntimeAttributeShiftDenies: a shift of a value the service's spans
// carry that a runtime change sets (a feature flag's variant, the model the
// provider answered with) in the minutes around the onset, a minute or more
// after the ledger's start of the running version, denies a
// deployment-class diagnosis (e2e/incidents-heldout14's Remote Config flag
// and Vertex AI model alias traps). A shift of the release's own values (a
// prompt template), one in the release's first minute, or a provider's
// model that moved with the model asked does not. Red with
// gate.runtime_attribute_shift.
func TestRuntimeAttributeShiftDenies(t *testing.T) {
	at := func(hh, mm int) time.Time { return time.Date(2026, 11, 30, hh, mm, 0, 0, time.UTC) }
	flag := contracts.QualityShift{Attribute: "feature_flag.result.variant", Value: "on", At: at(10, 5), Before: 0, Since: 0.76, Statistic: 450}
	model := contracts.QualityShift{Attribute: "gen_ai.response.model", Value: "gemini-2.0-flash-002", At: at(10, 5), Before: 0.003, Since: 0.97, Statistic: 300}
	asked := contracts.QualityShift{Attribute: "gen_ai.request.model", Value: "gemini-2.0-flash-002", At: at(10, 5), Before: 0, Since: 1, Statistic: 300}
	tmpl := contracts.QualityShift{Attribute: "tutor.prompt.template", Value: "tutor-system-v9", At: at(10, 5), Before: 0.02, Since: 1, Statistic: 500}
	moved := func(q contracts.QualityShift, hh, mm int) contracts.QualityShift { q.At = at(hh, mm); return q }
	for _, tc := range []struct {
		name     string
		class    string
		shifts   []contracts.QualityShift
		allow    bool
		contains []string
	}{
		{"a flag's variant at the onset", "config_regression", []contracts.QualityShift{flag}, false,
			[]string{`the spans of shop-api shifted "feature_flag.result.variant" = "on" share 0 -> 0.76 from the minute 2026-11-30T10:05:00Z, at the onset 2026-11-30T10:05:00Z and 3m0s after "v2" started (the ledger: 2026-11-30T10:02:00Z)`, "which a rollback of the image would not undo"}},
		{"the provider's model beside a template's shift", "prompt_regression", []contracts.QualityShift{tmpl, model}, false, []string{`"gen_ai.response.model"`}},
		{"the provider's model alone", "prompt_regression", []contracts.QualityShift{model}, false, []string{`"gen_ai.response.model" = "gemini-2.0-flash-002"`}},
		{"the provider's model with the model asked", "prompt_regression", []contracts.QualityShift{model, asked}, true, nil},
		{"a flag on a bad release", "bad_release", []contracts.QualityShift{flag}, false, []string{"feature_flag.result.variant"}},
		{"a flag three minutes before the onset", "config_regression", []contracts.QualityShift{moved(flag, 10, 3)}, false, []string{"from the minute 2026-11-30T10:03:00Z"}},
		{"a flag in the release's first minute", "config_regression", []contracts.QualityShift{moved(flag, 10, 2)}, true, nil},
		{"a flag long before the onset", "config_regression", []contracts.QualityShift{moved(flag, 9, 50)}, true, nil},
		{"a flag after the onset's next minute", "config_regression", []contracts.QualityShift{moved(flag, 10, 7)}, true, nil},
		{"the release's template", "prompt_regression", []contracts.QualityShift{tmpl}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.QualityShifts = tc.shifts
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.allow {
				require.NotContains(t, dep.Reason, "a value set outside the image")
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			for _, s := range tc.contains {
				require.Contains(t, dep.Reason, s)
			}
		})
	}
}
