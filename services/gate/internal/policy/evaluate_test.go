package policy_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

func TestEvaluateAllPassAllows(t *testing.T) {
	t.Parallel()
	d := policy.Evaluate(allowing())
	require.Equal(t, contracts.VerdictAllow, d.Verdict, "%+v", d.Checks)
	require.Empty(t, d.FailedChecks)
	require.NotNil(t, d.FailedChecks, "failed_checks encodes as [] not null")
	require.Empty(t, d.NextStep)
	require.Len(t, d.Checks, 7)
	names := []string{contracts.CheckSLOBreach, contracts.CheckAllowlist, contracts.CheckCooldown,
		contracts.CheckConfidence, contracts.CheckDeploymentRelated, contracts.CheckSandboxScope, contracts.CheckFreeze}
	for i, c := range d.Checks {
		require.Equal(t, names[i], c.Name)
		require.True(t, c.Passed, c.Name)
		require.NotEmpty(t, c.Reason, c.Name)
		require.NotEmpty(t, c.Inputs, c.Name)
	}
	require.Equal(t, "decision.review.inv-1", d.DecisionID)
	require.Equal(t, "retry_storm", d.Diagnosis)
	require.InDelta(t, 0.82, d.Confidence, 1e-12)
	require.Equal(t, "agentk-demo/shop-api:v1", d.RollbackTarget)
	require.Equal(t, tNow, d.DecidedAt)
	require.Equal(t, tNow.Add(15*time.Minute), d.ExpiresAt)
	require.Equal(t, "2026-11-30T10:05:00Z", d.Checks[4].Inputs["onset"])
	require.Equal(t, "shop-api@v2@2026-11-30T10:02:00Z", d.Checks[4].Inputs["marker"])
	_, err := json.Marshal(d)
	require.NoError(t, err)
}

func TestEvaluateDeterministic(t *testing.T) {
	t.Parallel()
	a, b := policy.Evaluate(allowing()), policy.Evaluate(allowing())
	require.Equal(t, a, b)
}

// Each case breaks exactly one check; the decision must deny and name only it.
func TestEvaluateEachCheckFailingAloneDenies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		check  string
		mutate func(in *policy.Input)
		reason string
	}{
		{"burn rate below threshold", contracts.CheckSLOBreach, func(in *policy.Input) {
			in.Alert.BurnRate, in.Alert.Labels["burn_rate"] = 0.9, "0.9"
		}, "below the threshold"},
		{"burn rate NaN in the field", contracts.CheckSLOBreach, func(in *policy.Input) { in.Alert.BurnRate = math.NaN() }, "below"},
		{"burn rate +Inf in the field", contracts.CheckSLOBreach, func(in *policy.Input) { in.Alert.BurnRate = math.Inf(1) }, "below"},
		{"burn rate NaN in the label", contracts.CheckSLOBreach, func(in *policy.Input) { in.Alert.Labels["burn_rate"] = "NaN" }, "reads as 0"},
		{"burn rate +Inf in the label", contracts.CheckSLOBreach, func(in *policy.Input) { in.Alert.Labels["burn_rate"] = "+Inf" }, "reads as 0"},
		{"burn rate negative", contracts.CheckSLOBreach, func(in *policy.Input) {
			in.Alert.BurnRate, in.Alert.Labels["burn_rate"] = -14.4, "-14.4"
		}, "reads as 0"},
		{"burn rate missing", contracts.CheckSLOBreach, func(in *policy.Input) {
			in.Alert.BurnRate, in.Alert.BurnRateSource = 0, ""
			delete(in.Alert.Labels, "burn_rate")
		}, "reads as 0"},
		{"burn rate only in free text", contracts.CheckSLOBreach, func(in *policy.Input) {
			// A lenient ingester (or an attacker's annotation) put 14.4 in the
			// field; the signed labels hold it only in prose.
			delete(in.Alert.Labels, "burn_rate")
			in.Alert.Annotations = map[string]string{"description": "burn_rate=14.4, burn rate 14.4x over 1h", "summary": "slo_burn_rate: 14.4"}
		}, "reads as 0"},
		{"burn rate unparseable", contracts.CheckSLOBreach, func(in *policy.Input) { in.Alert.Labels["burn_rate"] = "14.4x" }, "reads as 0"},
		{"alert resolved", contracts.CheckSLOBreach, func(in *policy.Input) { in.Alert.Status = contracts.AlertResolved }, "not firing"},
		{"test alert", contracts.CheckSLOBreach, func(in *policy.Input) { in.Alert.Test = true }, "test notification"},
		{"no-data alert", contracts.CheckSLOBreach, func(in *policy.Input) { in.Alert.NoData = true }, "no-data"},

		{"action restart", contracts.CheckAllowlist, func(in *policy.Input) { in.Action = "restart" }, "not in the allowlist"},
		{"action empty", contracts.CheckAllowlist, func(in *policy.Input) { in.Action = "" }, "not in the allowlist"},
		{"allowlist misconfigured with an unknown action", contracts.CheckAllowlist, func(in *policy.Input) {
			in.Action, in.Config.Actions = "scale", []string{"rollback", "scale"}
		}, "not in the allowlist"},

		{"cooldown store unreadable", contracts.CheckCooldown, func(in *policy.Input) {
			in.Cooldown = policy.CooldownState{Err: "kv: timeout"}
		}, "could not be read"},
		{"cooldown 599s after the last action", contracts.CheckCooldown, func(in *policy.Input) {
			in.Cooldown = policy.CooldownState{Found: true, Last: contracts.CooldownV1{Service: svc, ActionID: "a1", At: tNow.Add(-599 * time.Second)}}
		}, "within the 10m0s cooldown"},
		{"cooldown entry in the future", contracts.CheckCooldown, func(in *policy.Input) {
			in.Cooldown = policy.CooldownState{Found: true, Last: contracts.CooldownV1{Service: svc, ActionID: "a1", At: tNow.Add(time.Hour)}}
		}, "within"},
		{"cooldown entry of another service", contracts.CheckCooldown, func(in *policy.Input) {
			in.Cooldown = policy.CooldownState{Found: true, Last: contracts.CooldownV1{Service: "other", ActionID: "a1", At: tNow.Add(-time.Hour)}}
		}, "names service"},

		{"confidence below threshold", contracts.CheckConfidence, func(in *policy.Input) {
			in.Review.Best.Confidence, in.Review.Kept[0].Confidence = 0.69, 0.69
		}, "below the threshold"},
		{"confidence above 1", contracts.CheckConfidence, func(in *policy.Input) {
			in.Review.Best.Confidence, in.Review.Kept[0].Confidence = 7, 7
		}, "not a number in [0, 1]"},
		{"best is not a kept claim", contracts.CheckConfidence, func(in *policy.Input) {
			in.Review.Best = &contracts.Claim{ID: "forged", Class: "retry_storm", Confidence: 0.99}
		}, "not among the kept"},
		{"investigation incomplete", contracts.CheckConfidence, func(in *policy.Input) {
			in.Review.InvestigationCompleted, in.Review.IncompleteReason = false, "token budget exhausted"
		}, "token budget exhausted"},
		{"insufficient evidence", contracts.CheckConfidence, func(in *policy.Input) { in.Review.InsufficientEvidence = true }, "insufficient evidence"},

		{"diagnosis not deployment-class", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Review.Best.Class, in.Review.Kept[0].Class = "db_pool_exhaustion", "db_pool_exhaustion"
		}, "not deployment-class"},
		{"diagnosis not in the catalogue", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Review.Best.Class, in.Review.Kept[0].Class = "cosmic_rays", "cosmic_rays"
		}, "not in the catalogue"},
		{"catalogue says the class is not deployment-class", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Config.Catalogue = []contracts.FailureClass{{Name: "retry_storm", DeploymentClass: false}}
		}, "not deployment-class"},
		{"marker after the onset but before the alert fired", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			markers(in, contracts.DeploymentMarker{Service: svc, Version: "v2", At: tOnset.Add(2 * time.Minute)})
		}, "no deployment.marker span"},
		{"marker exactly at the onset", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			markers(in, contracts.DeploymentMarker{Service: svc, Version: "v2", At: tOnset})
		}, "no deployment.marker span"},
		{"stale marker", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			markers(in, contracts.DeploymentMarker{Service: svc, Version: "v2", At: tOnset.Add(-30*time.Minute - time.Second)})
		}, "no deployment.marker span"},
		{"other service's marker", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			markers(in, contracts.DeploymentMarker{Service: "search-api", Version: "v2", At: tMarker})
		}, "no deployment.marker span"},
		{"marker text in a log", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			markers(in)
			in.Evidence = append(in.Evidence, contracts.EvidenceV1{
				ID: "ev-logs", InvestigationID: invID, Service: svc, Tool: contracts.ToolErrorLogs,
				From: tStarts.Add(-2 * time.Hour), To: tNow,
				Compact: `{"body":"span deployment.marker service.name=shop-api deployment.version=v2 at 10:02"}`,
			})
			in.Review.Best.Statement = "a deployment.marker of shop-api v2 at 10:02 precedes the onset"
			in.Review.Kept[0].Statement = in.Review.Best.Statement
		}, "no deployment.marker span"},
		{"marker query never ran", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence = in.Evidence[:1]
		}, "never looked"},
		{"marker query did not cover the window", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[1].From = tOnset.Add(-10 * time.Minute)
		}, "never looked"},
		{"marker query of another service", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[1].Service = "search-api"
		}, "never looked"},
		{"marker evidence from another investigation", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[1].InvestigationID = "inv-0"
		}, "never looked"},
		{"onset unknown", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[0].Facts.Onset = nil
		}, "onset"},
		{"baseline too short: the sandbox's words reach the reason", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[0].Facts.Onset = nil
			in.Evidence[0].Facts.OnsetUnknown = "baseline 6 min (40 sampled requests) before the alert, need 10 min and 30 sampled requests: onset unknown"
		}, "(baseline 6 min (40 sampled requests) before the alert, need 10 min"},
		{"only an onset of another investigation", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Evidence[0].InvestigationID = "inv-0"
		}, "onset"},
		{"marker is not the running release", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			markers(in, contracts.DeploymentMarker{Service: svc, Version: "v1.9", At: tMarker})
		}, "would not undo that release"},
		{"ledger has no rollback target", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Ledger.Ledger.Releases = in.Ledger.Ledger.Releases[1:]
		}, "no earlier release"},
		{"ledger missing", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Ledger = policy.LedgerState{}
		}, "no entry"},
		{"ledger unreadable", contracts.CheckDeploymentRelated, func(in *policy.Input) {
			in.Ledger = policy.LedgerState{Err: "bad signature"}
		}, "could not be read"},

		{"service not a sandbox service", contracts.CheckSandboxScope, func(in *policy.Input) {
			in.Config.SandboxServices = []string{"search-api"}
		}, "not a configured sandbox service"},
		{"no sandbox services configured", contracts.CheckSandboxScope, func(in *policy.Input) {
			in.Config.SandboxServices = nil
		}, "not a configured sandbox service"},
		{"review names another service than the alert", contracts.CheckSandboxScope, func(in *policy.Input) {
			in.Review.Service = "search-api"
		}, "signed alert names"},
		{"review of another incident", contracts.CheckSandboxScope, func(in *policy.Input) {
			in.Review.IncidentID = "inc-9"
		}, "signed alert is"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := allowing()
			tc.mutate(&in)
			d := policy.Evaluate(in)
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, []string{tc.check}, d.FailedChecks, "%+v", d.Checks)
			require.Contains(t, d.NextStep, tc.check+":")
			for _, c := range d.Checks {
				if c.Name == tc.check {
					require.False(t, c.Passed)
					require.Contains(t, c.Reason, tc.reason)
				}
			}
		})
	}
}

// Inputs that fail several checks at once name every one of them.
func TestEvaluateReportsEveryFailedCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(in *policy.Input)
		failed []string
	}{
		{"no claim survived review", func(in *policy.Input) {
			in.Review.Best, in.Review.Kept, in.Review.InsufficientEvidence = nil, nil, true
		}, []string{contracts.CheckConfidence, contracts.CheckDeploymentRelated}},
		{"alert did not verify", func(in *policy.Input) {
			in.Alert, in.AlertErr = nil, "envelope: bad signature"
		}, []string{contracts.CheckSLOBreach, contracts.CheckSandboxScope}},
		{"alert names no service", func(in *policy.Input) {
			in.Alert.Service, in.Review.Service = "", ""
		}, []string{contracts.CheckDeploymentRelated, contracts.CheckSandboxScope}},
		{"everything wrong", func(in *policy.Input) {
			in.Alert.BurnRate, in.Action = 0, "restart"
			in.Cooldown = policy.CooldownState{Err: "down"}
			in.Review.Best, in.Review.Kept = nil, nil
			in.Config.SandboxServices = nil
		}, []string{contracts.CheckSLOBreach, contracts.CheckAllowlist, contracts.CheckCooldown,
			contracts.CheckConfidence, contracts.CheckDeploymentRelated, contracts.CheckSandboxScope}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := allowing()
			tc.mutate(&in)
			d := policy.Evaluate(in)
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, tc.failed, d.FailedChecks)
			for _, f := range tc.failed {
				require.Contains(t, d.NextStep, f+":")
			}
		})
	}
}

// Boundaries that must still allow.
func TestEvaluateBoundariesAllow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(in *policy.Input)
	}{
		{"burn rate exactly the threshold", func(in *policy.Input) { in.Alert.BurnRate, in.Alert.Labels["burn_rate"] = 1.0, "1.0" }},
		{"burn rate from an annotation", func(in *policy.Input) {
			delete(in.Alert.Labels, "burn_rate")
			in.Alert.Annotations = map[string]string{"slo_burn_rate": "3"}
		}},
		{"confidence exactly the threshold", func(in *policy.Input) { in.Review.Best.Confidence, in.Review.Kept[0].Confidence = 0.70, 0.70 }},
		{"cooldown exactly elapsed", func(in *policy.Input) {
			in.Cooldown = policy.CooldownState{Found: true, Last: contracts.CooldownV1{Service: svc, ActionID: "a0", At: tNow.Add(-600 * time.Second)}}
		}},
		{"marker exactly at the window's start", func(in *policy.Input) {
			markers(in, contracts.DeploymentMarker{Service: svc, Version: "v2", At: tOnset.Add(-30 * time.Minute)})
			started(in, tOnset.Add(-30*time.Minute))
		}},
		{"stale and fresh markers: the fresh one counts", func(in *policy.Input) {
			markers(in,
				contracts.DeploymentMarker{Service: svc, Version: "v1", At: tOnset.Add(-3 * time.Hour)},
				contracts.DeploymentMarker{Service: "search-api", Version: "v7", At: tMarker},
				contracts.DeploymentMarker{Service: svc, Version: "v2", At: tMarker})
		}},
		{"evidence that failed verification is only counted", func(in *policy.Input) { in.EvidenceRejected = 2 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := allowing()
			tc.mutate(&in)
			d := policy.Evaluate(in)
			require.Equal(t, contracts.VerdictAllow, d.Verdict, "%+v", d.Checks)
		})
	}
}

func TestBurnRate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		field  float64
		labels map[string]string
		annots map[string]string
		want   float64
		src    string
	}{
		{"label", 2, map[string]string{"burn_rate": "2"}, nil, 2, "labels.burn_rate"},
		{"lower of field and label", 9, map[string]string{"burn_rate": "2"}, nil, 2, "labels.burn_rate"},
		{"field lower than label", 0.5, map[string]string{"burn_rate": "2"}, nil, 0.5, "labels.burn_rate"},
		{"key order", 5, map[string]string{"burnRate": "5", "slo_burn_rate": "4"}, nil, 4, "labels.slo_burn_rate"},
		{"labels before annotations", 5, map[string]string{"burnRate": "5"}, map[string]string{"burn_rate": "1"}, 5, "labels.burnRate"},
		{"skips an unparseable label", 3, map[string]string{"burn_rate": "high", "burnRate": "3"}, nil, 3, "labels.burnRate"},
		{"only free text", 14.4, nil, map[string]string{"description": "burn_rate 14.4"}, 0, ""},
		{"nothing", 0, nil, nil, 0, ""},
		{"NaN field", math.NaN(), map[string]string{"burn_rate": "2"}, nil, 0, "labels.burn_rate"},
		{"-Inf label", 2, map[string]string{"burn_rate": "-Inf"}, nil, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, src := policy.BurnRate(contracts.AlertV1{BurnRate: tc.field, Labels: tc.labels, Annotations: tc.annots})
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.src, src)
		})
	}
}

func BenchmarkEvaluate(b *testing.B) {
	in := allowing()
	b.ReportAllocs()
	for b.Loop() {
		if d := policy.Evaluate(in); d.Verdict != contracts.VerdictAllow {
			b.Fatal(d.FailedChecks)
		}
	}
}
