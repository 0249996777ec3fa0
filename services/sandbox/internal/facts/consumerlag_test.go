package facts

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestMessagingRole: the span kind decides; without one, the operation
// type of the messaging conventions does.
func TestMessagingRole(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, kind, op, want string }{
		{"SigNoz's producer kind", "Producer", "", "producer"},
		{"OTLP's consumer kind", "SPAN_KIND_CONSUMER", "", "consumer"},
		{"a numeric consumer kind", "5", "process", "consumer"},
		{"no kind, publish", "", "publish", "producer"},
		{"no kind, receive", "", "receive", "consumer"},
		{"a server span naming an operation type is no hop", "Server", "process", ""},
		{"an internal span", "Internal", "", ""},
		{"nothing", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, messagingRole(tc.kind, tc.op))
		})
	}
}

// queueWorld draws a producer publishing perMinute messages a minute to
// "jobs" for an hour and consumer "worker" processing each one wait later,
// every message taking procMs; from flood on the producer publishes
// floodFactor times as many, and from slow on each takes slowFactor times
// as long. The consumer keeps up while it can: a message waits for the ones
// before it.
func queueWorld(perMinute int, procMs float64, flood, slow time.Duration, floodFactor, slowFactor float64) ([]MessageSpan, time.Time) {
	start := time.Date(2026, 12, 3, 17, 0, 0, 0, time.UTC)
	var out []MessageSpan
	free := start
	n := 0
	for t := time.Duration(0); t < time.Hour; t += time.Minute {
		k, d := float64(perMinute), procMs
		if t >= flood {
			k *= floodFactor
		}
		if t >= slow {
			d *= slowFactor
		}
		for i := 0; i < int(k); i++ {
			pub := start.Add(t + time.Duration(float64(i)*float64(time.Minute)/k))
			begin := pub.Add(200 * time.Millisecond)
			if free.After(begin) {
				begin = free
			}
			free = begin.Add(time.Duration(d * float64(time.Millisecond)))
			n++
			id := fmt.Sprintf("%08x", n)
			out = append(out,
				MessageSpan{At: pub, TraceID: id, SpanID: "p" + id, Service: "producer", Destination: "jobs"},
				MessageSpan{At: begin, TraceID: id, SpanID: "c" + id, ParentID: "p" + id, Service: "worker", Destination: "jobs", DurationMs: d, Consumer: true})
		}
	}
	return out, start.Add(time.Hour)
}

// TestMeasureConsumerLag: the lag's onset is where arrivals outran
// processing, and the ratios say which moved: four times the messages at
// the same speed, or the same messages four times slower. A steady queue has
// no onset; a consumer whose producer spans were not read has no lag.
func TestMeasureConsumerLag(t *testing.T) {
	t.Parallel()
	never := 2 * time.Hour
	for _, tc := range []struct {
		name                 string
		spans                []MessageSpan
		service              string
		onset                time.Duration // from the world's start; -1 for none
		arrivals, processing float64       // want, within 15%
		nilLag               bool
	}{
		{"a flood: four times the messages", first(queueWorld(8, 5000, 40*time.Minute, never, 4, 1)), "worker", 40 * time.Minute, 4, 1, false},
		{"a slow consumer: four times the time a message", first(queueWorld(8, 5000, never, 40*time.Minute, 1, 4)), "worker", 40 * time.Minute, 1, 4, false},
		{"a steady queue", first(queueWorld(8, 5000, never, never, 1, 1)), "worker", -1, math.NaN(), math.NaN(), false},
		{"another service's consumer spans", first(queueWorld(8, 5000, 40*time.Minute, never, 4, 1)), "producer", -1, 0, 0, true},
		{"producer spans never read", consumersOnly(first(queueWorld(8, 5000, 40*time.Minute, never, 4, 1))), "worker", -1, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Date(2026, 12, 3, 17, 0, 0, 0, time.UTC)
			got := MeasureConsumerLag(tc.spans, tc.service, start.Add(time.Hour), DefaultMargins)
			if tc.nilLag {
				require.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			if tc.onset < 0 {
				require.Nil(t, got.Onset.At, got.Onset.Reason)
				return
			}
			require.NotNil(t, got.Onset.At, got.Onset.Reason)
			require.WithinDuration(t, start.Add(tc.onset), *got.Onset.At, 2*time.Minute, got.Onset.Reason)
			require.Greater(t, got.LagMs, 10*got.BaselineLagMs)
			require.InEpsilon(t, tc.arrivals, got.ArrivalRatio, 0.15)
			require.InEpsilon(t, tc.processing, got.ProcessRatio, 0.15)
		})
	}
}

func first(s []MessageSpan, _ time.Time) []MessageSpan { return s }

func consumersOnly(spans []MessageSpan) []MessageSpan {
	var out []MessageSpan
	for _, s := range spans {
		if s.Consumer {
			out = append(out, s)
		}
	}
	return out
}

// TestConsumerLagOfTheMeshMailer reads e2e/incidents-mesh's
// mesh-mailer-lag-campaign-flood as SigNoz's raw rows would carry it: the
// mailer's lag leaves its baseline at 17:53 (found at 17:52, 2-minute buckets) (0.4 s to 35 s and more) while
// the orders' publishes to mail.requested rise about fourfold and the
// mailer's time a message barely moves: a traffic surge, not a slower
// consumer.
func TestConsumerLagOfTheMeshMailer(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "..", "..", "e2e", "incidents-mesh", "mesh-mailer-lag-campaign-flood")
	f, _, err := incident.OpenTelemetry(dir, incident.FileSpans)
	require.NoError(t, err)
	defer f.Close()
	var rows []signoz.RawRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var d map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &d))
		rows = append(rows, signoz.RawRow{Data: d})
	}
	require.NoError(t, sc.Err())
	got := MeasureConsumerLag(MessageSpans(rows), "mailer", time.Date(2026, 12, 3, 18, 10, 0, 0, time.UTC), DefaultMargins)
	require.NotNil(t, got)
	require.NotNil(t, got.Onset.At, got.Onset.Reason)
	// The flood's first minute is 17:53; the lag is judged over 2-minute
	// buckets, so its onset may be one bucket early (FindOnset).
	require.WithinRange(t, *got.Onset.At, time.Date(2026, 12, 3, 17, 51, 0, 0, time.UTC), time.Date(2026, 12, 3, 17, 53, 0, 0, time.UTC), got.Onset.Reason)
	require.Less(t, got.BaselineLagMs, 500.0)
	require.Greater(t, got.LagMs, 60000.0)
	require.InDelta(t, 4.25, got.ArrivalRatio, 0.5)
	// Processing a message takes about a third longer (SMTP under the
	// flood): far less than the arrivals rose.
	require.Less(t, got.ProcessRatio, 1.5)
	require.Greater(t, got.ArrivalRatio, 2*got.ProcessRatio)
	t.Logf("onset %s: lag p95 %s ms -> %s ms, arrivals %sx, time a message %sx", got.Onset.At.Format(time.RFC3339), Format(got.BaselineLagMs), Format(got.LagMs), Format(got.ArrivalRatio), Format(got.ProcessRatio))
}
