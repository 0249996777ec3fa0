package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// release is a recording of "api" that ran v1 for 50 minutes, rolled out v2
// five minutes before the onset, and then failed the way fault says.
type release struct {
	// fault of api's server spans from the onset on: "panic" (a new failure,
	// only on v2), "noise" (more of the errors v1 always had), "canary-both"
	// (v1 still serves half the traffic and fails like v2).
	fault string
	// dep is how api's calls to its third party go from the onset on:
	// "outage" (they fail at the usual rate), "retries" (four calls per
	// request, failing).
	dep string
}

var noise = []string{"connection reset by peer", "unexpected EOF"}

func (rl release) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(3, 5))
	now := time.Date(2026, 11, 20, 11, 0, 0, 0, time.UTC)
	onset, deploy, startsAt := now.Add(-10*time.Minute), now.Add(-15*time.Minute), now.Add(-4*time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "release", Service: "api", Now: now}}
	add := func(at time.Time, trace, id, parent, version, name string, kind int, msg string, attrs map[string]json.RawMessage) {
		s := incident.Span{Timestamp: at, TraceID: trace, SpanID: id, ParentSpanID: parent, Name: name, Kind: kind, DurationNano: 30e6,
			Resource: map[string]string{"service.name": "api", "service.version": version}, Attributes: attrs}
		if msg != "" {
			s.HasError, s.StatusCode, s.StatusMessage = true, 2, msg
		}
		inc.Spans = append(inc.Spans, s)
	}
	peer := map[string]json.RawMessage{"server.address": json.RawMessage(`"payments.example.com"`), "peer.service": json.RawMessage(`"payments"`)}
	for at := now.Add(-60 * time.Minute); at.Before(now); at = at.Add(2 * time.Second) {
		bad := !at.Before(onset)
		v := "v1"
		if !at.Before(deploy) && (rl.fault != "canary-both" || r.IntN(2) == 0) {
			v = "v2"
		}
		msg := ""
		switch {
		case r.Float64() < 0.01:
			msg = noise[r.IntN(len(noise))]
		case bad && rl.fault == "panic" && v == "v2" && r.Float64() < 0.4:
			msg = "panic: runtime error: index 7 out of range [with length 3] at 0x4a3f2c"
		case bad && rl.fault == "noise" && r.Float64() < 0.3:
			msg = noise[r.IntN(len(noise))]
		case bad && rl.fault == "canary-both" && r.Float64() < 0.4:
			msg = "panic: runtime error: index 7 out of range [with length 3] at 0x4a3f2c"
		}
		trace, server := hexID(r, 16), hexID(r, 8)
		add(at, trace, server, "", v, "GET /pay", 2, msg, map[string]json.RawMessage{})
		calls, callMsg := 1, ""
		if bad && rl.dep != "" && r.Float64() < 0.7 {
			callMsg = "503 Service Unavailable"
			if rl.dep == "retries" {
				calls = 4
			}
		}
		for range calls {
			add(at.Add(time.Millisecond), trace, hexID(r, 8), server, v, "POST", 3, callMsg, peer)
		}
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// TestReleaseComparison: service_overview compares the errors of the running
// service.version since the onset with the history before it served, by
// status signature, and names the dependencies that failed at their usual
// call rate.
func TestReleaseComparison(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		rl         release
		newSig     string
		minNew     int64
		otherNew   bool
		failingDep []string
	}{
		{"a release that panics: a new failure on v2 only", release{fault: "panic"}, "panic: runtime error: index # out of range [with length #] at #", 50, false, nil},
		{"more of the errors v1 always had: nothing new", release{fault: "noise"}, "", 0, false, nil},
		{"v1 and v2 fail alike: shared by the other version", release{fault: "canary-both"}, "panic: runtime error: index # out of range [with length #] at #", 20, true, nil},
		{"a third party failing at the usual call rate", release{dep: "outage"}, "", 0, false, []string{"payments.example.com"}},
		{"calls multiplied by retries are no failing dependency", release{dep: "retries"}, "", 0, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := apiOverview(t, tt.rl.incident)
			f := out.Facts
			require.NotNil(t, f.Release, out.Compact)
			rel := f.Release
			require.Equal(t, "v2", rel.Version, out.Compact)
			require.Positive(t, rel.HistoryMinutes)
			require.Positive(t, rel.HistoryErrors, "v1's background errors are history")
			require.Equal(t, tt.newSig, rel.NewSignature, out.Compact)
			require.GreaterOrEqual(t, rel.NewErrors, tt.minNew)
			require.Equal(t, tt.otherNew, rel.OtherNewErrors > 0, "%+v", rel)
			require.Equal(t, tt.failingDep, f.FailingDependencies, out.Compact)
			require.NotNil(t, f.PeakCallRatio, out.Compact)
			require.Equal(t, "payments.example.com", f.PeakCallPeer)
			if tt.rl.dep == "retries" {
				require.Greater(t, *f.PeakCallRatio, 2.0, "four calls a request where there was one")
			} else {
				require.Less(t, *f.PeakCallRatio, 1.5, "the usual call rate")
			}
			require.Contains(t, out.Compact, `errors by service.version: "v2" first served at`)
		})
	}
}
