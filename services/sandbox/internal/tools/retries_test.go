package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// inSpanRetries is a recording of "api", an assistant whose LLM client
// retries inside one INTERNAL "chat" span: no client span per attempt. From
// the onset on, each request's chat call times out and is retried; the
// retries show only as attr (a span attribute counting them, "" for none)
// and, when logs is set, as the SDK's log lines.
type inSpanRetries struct {
	attr string
	// attempts: attr counts attempts (1 for the first) instead of retries.
	attempts bool
	logs     bool
	// none: nothing is retried (the timeouts are all there is).
	none bool
	// client: the chat span is a client span to the provider's host, and
	// it fails when its last attempt did (a third of the retried calls).
	client bool
}

func (s inSpanRetries) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(35, 4))
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	onset, startsAt := now.Add(-12*time.Minute), now.Add(-6*time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "in-span-retries", Service: "api", Now: now}}
	res := map[string]string{"service.name": "api", "service.version": "v1"}
	for at := now.Add(-70 * time.Minute); at.Before(now); at = at.Add(3 * time.Second) {
		bad := !at.Before(onset)
		retries := 0
		if bad && !s.none {
			retries = 1 + r.IntN(3)
		}
		d := time.Duration(400+r.IntN(200)) * time.Millisecond
		if bad {
			d += 2 * time.Second
		}
		trace, root, chat := hexID(r, 16), hexID(r, 8), hexID(r, 8)
		attrs := map[string]json.RawMessage{"gen_ai.system": json.RawMessage(`"openai"`)}
		if s.attr != "" {
			n := retries
			if s.attempts {
				n++
			}
			attrs[s.attr] = json.RawMessage(strconv.Itoa(n))
		}
		chatSpan := incident.Span{Timestamp: at, TraceID: trace, SpanID: chat, ParentSpanID: root, Name: "chat", Kind: 1, DurationNano: int64(d), Resource: res, Attributes: attrs}
		if s.client {
			chatSpan.Kind = 3
			attrs["server.address"] = json.RawMessage(`"api.openai.com"`)
			if retries > 0 && r.IntN(3) == 0 {
				chatSpan.HasError, chatSpan.StatusCode, chatSpan.StatusMessage = true, 2, "Request timed out."
			}
		}
		inc.Spans = append(inc.Spans,
			incident.Span{Timestamp: at, TraceID: trace, SpanID: root, Name: "POST /ask", Kind: 2, DurationNano: int64(d + 10*time.Millisecond), Resource: res,
				Attributes: map[string]json.RawMessage{"http.route": json.RawMessage(`"/ask"`)}}, chatSpan)
		if s.logs {
			for i := range retries {
				inc.Logs = append(inc.Logs, incident.Log{Timestamp: at.Add(time.Duration(i+1) * 500 * time.Millisecond), SeverityText: "INFO", TraceID: trace, SpanID: chat, Resource: res,
					Body: "Retrying request to /chat/completions in 0.8" + strconv.Itoa(i) + " seconds"})
			}
		}
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// TestRetryRiseCountsEverySource: retries counted in a span attribute (a
// count of retries or of attempts) or in the SDK's retry log lines show as
// a retry rise naming its source; timeouts that are not retried do not
// (mutant sandbox.retry_attributes).
func TestRetryRiseCountsEverySource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		s           inSpanRetries
		source, key string
	}{
		{"resend count attribute", inSpanRetries{attr: "http.request.resend_count"}, "attribute", "http.request.resend_count"},
		{"an LLM client's retry count", inSpanRetries{attr: "llm.retry_count"}, "attribute", "llm.retry_count"},
		{"attempts, the first counted as 1", inSpanRetries{attr: "retry.attempt", attempts: true}, "attribute", "retry.attempt"},
		{"the SDK's log lines only", inSpanRetries{logs: true}, "logs", "retry log lines"},
		{"timeouts, never retried", inSpanRetries{attr: "retry_count", none: true}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := apiOverview(t, tt.s.incident)
			r := out.Facts.Retries
			if tt.source == "" {
				require.Nil(t, r, out.Compact)
				return
			}
			require.NotNil(t, r, out.Compact)
			require.Equal(t, tt.source, r.Source)
			require.Equal(t, tt.key, r.Key)
			require.GreaterOrEqual(t, r.Ratio, 2.0, "%+v", r)
			require.Contains(t, out.Compact, "retries per inbound request since the onset")
		})
	}
}

// TestRetryCountIsAttemptsToThePeer: a client span to a peer that counts
// its retries is as many calls as attempts, as spans per attempt would be:
// the calls to the peer rise with the retries (facts.peak_call_ratio), and
// a peer whose retried calls fail is no dependency failing at its usual
// call rate (mutant sandbox.retry_attempts).
func TestRetryCountIsAttemptsToThePeer(t *testing.T) {
	t.Parallel()
	out := apiOverview(t, inSpanRetries{attr: "llm.retry_count", client: true}.incident)
	f := out.Facts
	require.NotNil(t, f.PeakCallRatio, out.Compact)
	require.Equal(t, "api.openai.com", f.PeakCallPeer)
	require.GreaterOrEqual(t, *f.PeakCallRatio, 2.0, out.Compact)
	require.Empty(t, f.FailingDependencies, out.Compact)
}
