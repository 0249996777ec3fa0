package policy_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// knobs are the dimensions a random input varies along.
type knobs struct {
	burn          float64
	burnLabel     uint8 // 0 none, 1 label, 2 annotation, 3 free text only
	action        uint8
	cooldownAgeS  int64
	cooldownState uint8 // 0 none, 1 found, 2 unreadable
	confidence    float64
	completed     bool
	insufficient  bool
	class         uint8
	onsetKnown    bool
	markerOffS    int64 // marker time relative to the onset
	markerOther   bool
	queryFromOffS int64 // marker query from, relative to onset−window
	otherInv      bool
	ledgerN       uint8
	inSandbox     bool
	ledgerSkewS   int64 // the ledger's start of the running release relative to the marker
}

var classes = []string{"retry_storm", "bad_release", "db_pool_exhaustion", "unknown", "made_up"}

func build(k knobs) policy.Input {
	in := allowing()
	in.Alert.BurnRate = k.burn
	in.Alert.Labels = map[string]string{}
	bs := policy.BurnRateText(k.burn)
	switch k.burnLabel % 4 {
	case 1:
		in.Alert.Labels["burn_rate"] = bs
	case 2:
		in.Alert.Annotations = map[string]string{"burnRate": bs}
	case 3:
		in.Alert.Annotations = map[string]string{"description": "burn rate " + bs}
	}
	in.Action = []string{"rollback", "restart", "", "scale"}[k.action%4]
	switch k.cooldownState % 3 {
	case 1:
		in.Cooldown = policy.CooldownState{Found: true, Last: contracts.CooldownV1{Service: svc, ActionID: "a", At: tNow.Add(-time.Duration(k.cooldownAgeS) * time.Second)}}
	case 2:
		in.Cooldown = policy.CooldownState{Err: "unreadable"}
	}
	in.Review.Best.Confidence, in.Review.Kept[0].Confidence = k.confidence, k.confidence
	in.Review.Best.Class = classes[int(k.class)%len(classes)]
	in.Review.Kept[0].Class = in.Review.Best.Class
	in.Review.InvestigationCompleted, in.Review.InsufficientEvidence = k.completed, k.insufficient
	if !k.onsetKnown {
		in.Evidence[0].Facts.Onset = nil
	}
	m := contracts.DeploymentMarker{Service: svc, Version: "v2", At: tOnset.Add(time.Duration(k.markerOffS) * time.Second)}
	if k.markerOther {
		m.Service = "search-api"
	}
	markers(&in, m)
	started(&in, m.At.Add(time.Duration(k.ledgerSkewS)*time.Second))
	in.Evidence[1].From = tOnset.Add(-30*time.Minute + time.Duration(k.queryFromOffS)*time.Second)
	if k.otherInv {
		in.Evidence[1].InvestigationID = "inv-other"
	}
	n := int(k.ledgerN % 3)
	in.Ledger.Ledger.Releases = in.Ledger.Ledger.Releases[2-min(n, 2):]
	if !k.inSandbox {
		in.Config.SandboxServices = []string{"search-api"}
	}
	return in
}

// oracle restates DESIGN.md's six checks independently of the gate's code.
func oracle(k knobs, in policy.Input) bool {
	cfg := in.Config
	burnOK := k.burnLabel%4 == 1 || k.burnLabel%4 == 2
	burnOK = burnOK && !math.IsNaN(k.burn) && !math.IsInf(k.burn, 0) && k.burn >= cfg.BurnRateThreshold
	allow := in.Action == "rollback"
	cool := k.cooldownState%3 == 0 || (k.cooldownState%3 == 1 && time.Duration(k.cooldownAgeS)*time.Second >= cfg.Cooldown)
	conf := k.completed && !k.insufficient && k.confidence >= cfg.ConfidenceThreshold && k.confidence <= 1
	class := in.Review.Best.Class
	depClass := class == "retry_storm" || class == "bad_release"
	markerAt := time.Duration(k.markerOffS) * time.Second
	marker := k.onsetKnown && !k.markerOther && !k.otherInv && k.queryFromOffS <= 0 &&
		markerAt < 0 && markerAt >= -cfg.MarkerWindow
	// The ledger corroborates the marker: Docker started the running
	// release within the tolerance of the marker, and not after the onset.
	skew := time.Duration(k.ledgerSkewS) * time.Second
	agrees := skew.Abs() <= cfg.MarkerTolerance && markerAt+skew <= 0
	target := k.ledgerN%3 == 2
	marker = marker && agrees
	return burnOK && allow && cool && conf && depClass && marker && target && k.inSandbox
}

func checkProperty(t *testing.T, k knobs) {
	in := build(k)
	d := policy.Evaluate(in)
	want := oracle(k, in)
	if d.Verdict == contracts.VerdictAllow {
		require.True(t, want, "allowed but a check does not hold: %+v\n%+v", k, d.Checks)
		require.Empty(t, d.FailedChecks)
	} else {
		require.Equal(t, contracts.VerdictDeny, d.Verdict)
		require.False(t, want, "denied although all six hold: %+v\n%+v", k, d.Checks)
		require.NotEmpty(t, d.FailedChecks)
		require.NotEmpty(t, d.NextStep)
	}
	for _, c := range d.Checks {
		require.Equal(t, !c.Passed, slices.Contains(d.FailedChecks, c.Name))
	}
}

// TestEvaluatePropertyAllowImpliesAllSixHold draws inputs near the allow
// boundary: each knob takes a value that passes its check most of the time and
// a hostile one (NaN, a marker at or after the onset, another service's marker,
// an unreadable store, a ledger that saw the release start days from its
// marker, …) otherwise, so that both verdicts are common and every
// check is the only failing one in many inputs. It fails when any one check is
// switched off (`make mutants`: gate.marker_before_onset and gate.marker_ledger_agrees among others).
func TestEvaluatePropertyAllowImpliesAllSixHold(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 11))
	floats := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0, 0.99, 1, 1.01, 14.4}
	confs := []float64{-0.1, 0, 0.69, 0.6999999, 0.7, 0.71, 1, 1.01, math.NaN()}
	// often returns good with probability 0.92, else bad: fifteen knobs at
	// 0.92 reach allow in about a quarter of the inputs.
	often := func(good, bad func() int64) int64 {
		if r.IntN(100) < 92 {
			return good()
		}
		return bad()
	}
	const n = 5000
	allowed := 0
	for range n {
		k := knobs{
			burn:          floats[often(func() int64 { return int64(6 + r.IntN(3)) }, func() int64 { return int64(r.IntN(len(floats))) })],
			burnLabel:     uint8(often(func() int64 { return int64(1 + r.IntN(2)) }, func() int64 { return int64(r.IntN(4)) })),
			action:        uint8(often(func() int64 { return 0 }, func() int64 { return int64(r.IntN(4)) })),
			cooldownAgeS:  often(func() int64 { return int64(600 + r.IntN(700)) }, func() int64 { return int64(r.IntN(1300) - 100) }),
			cooldownState: uint8(often(func() int64 { return int64(r.IntN(2)) }, func() int64 { return int64(r.IntN(3)) })),
			confidence:    confs[often(func() int64 { return int64(4 + r.IntN(3)) }, func() int64 { return int64(r.IntN(len(confs))) })],
			completed:     often(func() int64 { return 1 }, func() int64 { return int64(r.IntN(2)) }) == 1,
			insufficient:  often(func() int64 { return 0 }, func() int64 { return int64(r.IntN(2)) }) == 1,
			class:         uint8(often(func() int64 { return int64(r.IntN(2)) }, func() int64 { return int64(r.IntN(len(classes))) })),
			onsetKnown:    often(func() int64 { return 1 }, func() int64 { return int64(r.IntN(2)) }) == 1,
			markerOffS:    often(func() int64 { return int64(-1800 + r.IntN(1800)) }, func() int64 { return int64(r.IntN(4000) - 3000) }),
			markerOther:   often(func() int64 { return 0 }, func() int64 { return int64(r.IntN(2)) }) == 1,
			queryFromOffS: often(func() int64 { return int64(-r.IntN(500)) }, func() int64 { return int64(r.IntN(600) - 500) }),
			otherInv:      often(func() int64 { return 0 }, func() int64 { return int64(r.IntN(2)) }) == 1,
			ledgerN:       uint8(often(func() int64 { return 2 }, func() int64 { return int64(r.IntN(3)) })),
			inSandbox:     often(func() int64 { return 1 }, func() int64 { return int64(r.IntN(2)) }) == 1,
			ledgerSkewS:   often(func() int64 { return int64(r.IntN(301) - 150) }, func() int64 { return int64(r.IntN(200000) - 100000) }),
		}
		checkProperty(t, k)
		if policy.Evaluate(build(k)).Verdict == contracts.VerdictAllow {
			allowed++
		}
	}
	frac := float64(allowed) / n
	t.Logf("allow in %d of %d inputs (%.0f%%)", allowed, n, 100*frac)
	require.GreaterOrEqual(t, frac, 0.20, "the generator must reach allow in at least 20%% of its inputs, or the property proves little")
	require.LessOrEqual(t, frac, 0.80, "and deny often enough that each check is exercised")
}

func FuzzEvaluate(f *testing.F) {
	f.Add(14.4, uint8(1), uint8(0), int64(900), uint8(1), 0.82, true, false, uint8(0), true, int64(-180), false, int64(0), false, uint8(2), true, int64(0))
	f.Add(1.0, uint8(2), uint8(0), int64(600), uint8(0), 0.7, true, false, uint8(1), true, int64(-1800), false, int64(-60), false, uint8(2), true, int64(300))
	f.Add(14.4, uint8(3), uint8(0), int64(900), uint8(0), 0.9, true, false, uint8(0), true, int64(120), false, int64(0), false, uint8(2), true, int64(-3*86400))
	f.Fuzz(func(t *testing.T, burn float64, burnLabel, action uint8, cdAge int64, cdState uint8, conf float64,
		completed, insufficient bool, class uint8, onsetKnown bool, markerOff int64, markerOther bool,
		queryFromOff int64, otherInv bool, ledgerN uint8, inSandbox bool, ledgerSkew int64) {
		clamp := func(v int64) int64 { return max(-1<<32, min(v, 1<<32)) }
		checkProperty(t, knobs{burn, burnLabel, action, clamp(cdAge), cdState, conf, completed, insufficient, class,
			onsetKnown, clamp(markerOff), markerOther, clamp(queryFromOff), otherInv, ledgerN, inSandbox, clamp(ledgerSkew)})
	})
}
