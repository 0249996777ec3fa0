package tools

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// The quality stage's planning: the sample that names the attributes, the
// queries of their series and the rendered line. The shifts they show are
// computed in package facts (facts/quality.go).
const (
	// QualitySample is how many of the service's spans the first stage
	// reads to learn its attributes.
	QualitySample = 300
	// MaxQualityNumeric and MaxQualityEnum bound the attributes followed.
	MaxQualityNumeric = 8
	MaxQualityEnum    = 6
	// MaxQualityValues is the most distinct values an attribute may show in
	// the sample to be read as enumerated.
	MaxQualityValues = 8
)

const qQualitySample = "quality_sample"

// qualityIgnored are attribute prefixes that describe the request's route,
// its peers, the process or the telemetry, not what the service answered:
// their mix moves with the traffic, and other facts read them.
var qualityIgnored = []string{"http.", "url.", "server.", "client.", "net.", "network.", "peer.", "rpc.", "db.", "messaging.",
	"process.", "thread.", "code.", "service.", "deployment.", "telemetry.", "otel.", "exception.", "user_agent.", "host.",
	"k8s.", "container.", "os.", "jvm.", "go.", "v8js.", "nodejs.", "dotnet.", "error.", "span.", "trace", "status"}

// qualitySampleQuery is the first stage's raw sample of the service's spans
// (every attribute), the latest first.
func qualitySampleQuery(svc string, from, to int64) Query {
	return Query{Name: qQualitySample, Request: signoz.NewRequest(signoz.RequestRaw, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
		Filter: signoz.Filter{Expression: and(svc, notMarker)}, Limit: QualitySample, Order: desc("timestamp")})}
}

// qualityKey is one attribute followed: numeric (its per-minute mean) or
// enumerated (its per-minute count by value).
type qualityKey struct {
	name    string
	numeric bool
}

// qualityKeys reads the sample's attributes: numeric where every value
// seen is a number, enumerated where at most MaxQualityValues distinct
// strings or booleans were seen on at least 10 spans; ignored prefixes,
// runtime and retry attributes aside.
func qualityKeys(resp signoz.Response) []qualityKey {
	q, _ := sampleKeys(resp)
	return q
}

// retryKeys are the numeric attributes of the sample that count retries
// or attempts (isRetryAttribute), at most MaxRetryAttributes.
func retryKeys(resp signoz.Response) []string {
	_, r := sampleKeys(resp)
	return r
}

// keySeen is what the sample showed of one attribute: on how many spans,
// how many of those values were numbers, and the other values.
type keySeen struct {
	n, nums int
	values  map[string]bool
}

// sampleKeysOf reads the attributes of the span sample: those followed as
// quality, and those counting retries.
func sampleKeysOf(resp signoz.Response) ([]qualityKey, []string) {
	res, err := resp.Raw()
	if err != nil {
		res = nil
	}
	return sampleKeysIn(res)
}

// sampleKeysIn is sampleKeysOf on the sample's decoded results.
func sampleKeysIn(res []signoz.RawResult) ([]qualityKey, []string) {
	by := sampleAttributes(res)
	var num, enum []qualityKey
	var retry []string
	for _, k := range sortedKeys(by) {
		s := by[k]
		switch {
		case isRetryAttribute(k):
			if s.nums == s.n && len(retry) < MaxRetryAttributes {
				retry = append(retry, k)
			}
		case s.nums == s.n && s.n >= 10:
			num = append(num, qualityKey{name: k, numeric: true})
		case s.nums == 0 && s.n >= 10 && len(s.values) >= 1 && len(s.values) <= MaxQualityValues:
			enum = append(enum, qualityKey{name: k})
		}
	}
	return append(num[:min(len(num), MaxQualityNumeric)], enum[:min(len(enum), MaxQualityEnum)]...), retry
}

// sampleAttributes counts, per attribute of the sample's spans (ignored
// prefixes aside, retry attributes kept), its spans and its values.
func sampleAttributes(res []signoz.RawResult) map[string]*keySeen {
	by := map[string]*keySeen{}
	for _, r := range res {
		for _, row := range r.Rows {
			for _, m := range facts.AttrMaps {
				mm, _ := row.Data[m].(map[string]any)
				for k, v := range mm {
					if v == nil || (ignoredQuality(k) && !isRetryAttribute(k)) {
						continue
					}
					s := by[k]
					if s == nil {
						s = &keySeen{values: map[string]bool{}}
						by[k] = s
					}
					s.n++
					switch x := v.(type) {
					case float64, int, int64:
						s.nums++
					case string:
						s.values[x] = true
					case bool:
						s.values[fmt.Sprint(x)] = true
					}
				}
			}
		}
	}
	return by
}

// platformIgnored are the prefixes of the attributes a FaaS platform's
// instrumentation sets on every invocation (OpenTelemetry's faas.* and
// cloud.* conventions: the trigger, a cold start, the invocation's id, the
// invoked function and region): they describe how the platform ran the
// function, not what it answered, and their mix moves with the platform's
// scaling whatever the release. A cold start share that rises when the
// provisioned concurrency of an AWS Lambda alias is cut minutes after a
// release (heldout11's lb11-trap-provisioned-concurrency-locker-api) is no
// change the release made, and was rolled back on persona:quality's
// config_regression (mutant sandbox.quality_platform).
var platformIgnored = []string{"faas.", "cloud."}

// requestParameter reports whether k names a parameter of a request the
// service sent (a ".request." segment: gen_ai.request.temperature,
// gen_ai.request.max_tokens, a client library's
// opensearch.request.timeout_ms): what the service asked, set by its code
// or configuration, not what it was answered. Such an attribute flips with
// every release that changes it and would place the onset at the release
// as a quality shift, before the minutes in which the slowed peer answered
// the new version at its baseline (e2e/incidents-sent's
// sent-trap-timeout-opensearch-yellow-catalog: catalog 3.8.0-1's 5 s search
// timeout read as the onset, persona:quality's config_regression was
// rolled back on OpenSearch going YELLOW three minutes later). A size of
// what was sent is read where it counts, on the slowed peer's calls
// (facts.SentChanges; mutant sandbox.quality_request).
func requestParameter(k string) bool {
	return strings.Contains(k, ".request.") && !mutant.Off(mutant.SandboxQualityRequest)
}

// sentSize reports whether k is a size of what the service sent
// (facts.SentSizeKeys: the prompt's input or prompt tokens, the request
// body's bytes): set by the service's own template or payload, not by what
// it was answered, like a request's parameters. A prompt that grew with a
// release shifts them from its first call, and followed as a quality they
// placed the onset at the release, before the answers changed
// (worldgen's prompt-longer-template worlds: s18-w094's onset placed only
// by gen_ai.usage.prompt_tokens): the minutes in which a slowed peer
// answered the new version at its baseline would no longer be before it,
// as with a request's timeout. They are read where they count, on the
// slowed peer's calls (facts.SentChanges; mutant sandbox.quality_sent_size).
func sentSize(k string) bool {
	return slices.Contains(facts.SentSizeKeys, k) && !mutant.Off(mutant.SandboxQualitySentSize)
}

// promptName reports whether k names the prompt the service sent (a
// "prompt" segment, split on dots and underscores: app.prompt.template,
// desk.prompt.version, triage.prompt_version,
// gen_ai.prompt.template.name): which template or version the service
// used is what its code or configuration chose, not what it was
// answered, and it flips with the release that changed it. Followed as a
// quality it placed the onset at the release, before the minutes in which
// the model answered the new version at its baseline: worldgen's
// wording-release trap (Corner.WordingRelease, a model that slowed by
// itself minutes after a release that changed only the prompt's wording)
// was rolled back on the rules' prompt_regression and persona:quality's
// config_regression. The answers' own attributes (tokens written,
// evaluation scores, finish reasons) still place a prompt regression's
// onset (mutant sandbox.quality_prompt_name).
func promptName(k string) bool {
	if mutant.Off(mutant.SandboxQualityPromptName) {
		return false
	}
	return slices.Contains(strings.FieldsFunc(k, func(r rune) bool { return r == '.' || r == '_' }), "prompt")
}

func ignoredQuality(k string) bool {
	if slices.Contains(RuntimeAttributes, k) || isRetryAttribute(k) {
		return true
	}
	for _, p := range qualityIgnored {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	if requestParameter(k) || sentSize(k) || promptName(k) {
		return true
	}
	if mutant.Off(mutant.SandboxQualityPlatform) {
		return false
	}
	for _, p := range platformIgnored {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// qualityQueries are the follow-up stage's series of keys over the onset window.
func qualityQueries(svc string, ow Window, keys []qualityKey) []Query {
	var qs []Query
	for _, k := range keys {
		q := signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60, Filter: signoz.Filter{Expression: and(svc, notMarker, k.name+" EXISTS")}, Limit: 20}
		if k.numeric {
			q.Aggregations = []signoz.Aggregation{{Expression: "count()"}, {Expression: "avg(" + k.name + ")"}}
		} else {
			q.Aggregations = []signoz.Aggregation{{Expression: "count()"}}
			q.GroupBy = []signoz.FieldKey{{Name: k.name, FieldContext: "attribute"}}
		}
		qs = append(qs, Query{Name: "per_minute_quality_" + k.name, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), q)})
	}
	return qs
}

// qualityLine says which attributes shifted.
func qualityLine(q []contracts.QualityShift) string {
	var parts []string
	for _, s := range q {
		what := compact.Quote(s.Attribute) + " mean"
		if s.Value != "" {
			what = compact.Quote(s.Attribute) + " = " + compact.Quote(s.Value) + " share"
		}
		parts = append(parts, fmt.Sprintf("%s %s -> %s from %s", what, fmtF(s.Before), fmtF(s.Since), s.At.Format(time.RFC3339)))
	}
	return "attributes of the service's own spans that shifted (significant over every series looked at): " + strings.Join(parts, "; ")
}
