package worldgen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// False markers (issue 31, DESIGN.md rule 15): a deployment.marker span of the
// affected service that the release ledger contradicts. Each is drawn for a
// runtime-class world whose affected service did not deploy in the
// recording, so the right answer stays deny (deployment_related): the
// ledger says the running version started days before.
const (
	// TestSuiteMarkers: a test suite pointed at the wrong collector leaks a
	// burst of markers of several versions, the running one among them, from
	// a client with a test user agent.
	TestSuiteMarkers Variant = "test-suite-leaked-markers"
	// CrashLoopMarkers: the running (old) version announces itself on every
	// start of a crash loop: the same version, several markers.
	CrashLoopMarkers Variant = "crash-loop-re-emitted-markers"
	// OtherEnvMarker: a copy of the service in another environment (same
	// service.name, another deployment.environment) deploys.
	OtherEnvMarker Variant = "another-environments-marker"
	// ForgedMarker: one marker of the running version 8 to 14 minutes before
	// the alert, as issue 31's forged-marker corpus adds.
	ForgedMarker Variant = "forged-marker-of-running-version"
)

// ClientRetries: the client retries a failing dependency (World.ClientRetries).
const ClientRetries Variant = "client-retries-a-failing-dependency"

// falseVariants are the false-marker variants, drawn evenly.
var falseVariants = []Variant{TestSuiteMarkers, CrashLoopMarkers, OtherEnvMarker, ForgedMarker}

// FalseMarker is one marker span the ledger contradicts.
type FalseMarker struct {
	Version string
	At      time.Time
	// Resource and Attributes are written besides service.name and
	// deployment.version.
	Resource   map[string]any
	Attributes map[string]any
}

// falseMarkerShare is the share of eligible worlds that carry one.
const falseMarkerShare = 0.6

// drawFalseMarkers gives an eligible world (runtime class, no deploy of the
// affected service, a release history) a false-marker variant. It draws from
// its own stream, after every other draw, so that the worlds without one are
// the same worlds they were before false markers existed.
func (w *World) drawFalseMarkers() {
	r := rand.New(rand.NewPCG(w.Seed^0xfa15e0, uint64(w.Index)*0x2545f4914f6cdd1d+3))
	if deploymentClass(w.Class) || len(w.Versions) < 2 || r.Float64() >= falseMarkerShare {
		return
	}
	if _, ok := w.AffectedDeploy(); ok {
		return
	}
	v := pick(r, falseVariants)
	w.add(v)
	if w.Class == "dependency_outage" && r.Float64() < 0.7 {
		// The client's long-standing retry policy: when the dependency
		// fails, each request tries 2 to 5 times. The calls multiply as
		// a retry storm's do, with no release behind them (the rules'
		// retry_storm on a dependency outage that issue 31 saw roll back).
		w.ClientRetries = 1 + r.IntN(4)
		w.add(ClientRetries)
	}
	cur := w.NewVersion()
	// No marker before the recording's first minute, none after now.
	clamp := func(t time.Time) time.Time {
		lo := w.Start.Add(time.Minute)
		if t.Before(lo) {
			t = lo
		}
		return t.Truncate(time.Millisecond)
	}
	switch v {
	case TestSuiteMarkers:
		w.FalseMarkers = testSuiteBurst(r, w, cur, clamp(w.Onset.Add(-time.Duration(90+r.IntN(1400))*time.Second)))
	case CrashLoopMarkers:
		at := clamp(w.Onset.Add(-time.Duration(5+r.IntN(24)) * time.Minute))
		for n := 3 + r.IntN(5); n > 0 && at.Before(w.Now); n-- {
			w.FalseMarkers = append(w.FalseMarkers, FalseMarker{Version: cur, At: at,
				Resource: map[string]any{"process.pid": 1 + r.IntN(40)}, Attributes: map[string]any{"deployment.trigger": pick(r, []string{"process-start", "startup", "boot"})}})
			at = at.Add(time.Duration(40+r.IntN(330)) * time.Second)
		}
	case OtherEnvMarker:
		version := cur
		if r.Float64() < 0.5 {
			_, version = versionPair(r, w.MarkerStyle)
		}
		env := pick(r, []string{"staging", "qa", "preprod", "eu-canary", "perf"})
		key := "deployment.environment"
		if w.Semconv == SemconvNew {
			key = "deployment.environment.name"
		}
		w.FalseMarkers = []FalseMarker{{Version: version, At: clamp(w.Onset.Add(-time.Duration(120+r.IntN(1500)) * time.Second)),
			Resource: map[string]any{key: env}, Attributes: map[string]any{"deployment.id": fmt.Sprintf("%s-%d", env, 100+r.IntN(9000))}}}
	case ForgedMarker:
		w.FalseMarkers = []FalseMarker{{Version: cur, At: clamp(w.StartsAt.Add(-time.Duration(480+r.IntN(361)) * time.Second)), Resource: map[string]any{}, Attributes: map[string]any{}}}
	}
	w.FalseMarkers = slices.DeleteFunc(w.FalseMarkers, func(m FalseMarker) bool { return !m.At.Before(w.Now) })
}

// testSuiteBurst is a burst of 3 to 9 markers within seconds to a minute,
// of the running version and of versions a test fixture makes up, sent by a
// test client.
func testSuiteBurst(r *rand.Rand, w *World, cur string, at time.Time) []FalseMarker {
	agent := pick(r, []string{"python-requests/2.31.0", "pytest/8.3.2", "Go-http-client/1.1", "okhttp/4.12.0", "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)", "curl/8.5.0"})
	sdk := pick(r, []string{"python", "go", "java", "nodejs"})
	fixture := []string{cur, olderVersion(cur), "0.0.0-test", "test-" + fmt.Sprintf("%06x", r.Uint32()>>8), "v0.0.1-dev", "1.0.0-SNAPSHOT"}
	n := 3 + r.IntN(7)
	spread := time.Duration(2+r.IntN(58)) * time.Second
	var out []FalseMarker
	for i := range n {
		version := fixture[r.IntN(len(fixture))]
		if i == 0 {
			version = cur // the running version is among them: the dangerous one
		}
		res := map[string]any{"telemetry.sdk.language": sdk, "telemetry.sdk.name": "opentelemetry"}
		if r.Float64() < 0.5 {
			res["deployment.environment"] = pick(r, []string{"ci", "test", "local"})
		}
		attrs := map[string]any{"user_agent.original": agent}
		if r.Float64() < 0.5 {
			attrs["test.case.name"] = pick(r, []string{"test_emits_deployment_marker", "TestMarkerRoundTrip", "it records a deploy", "test_rollback_marker[" + version + "]"})
		}
		out = append(out, FalseMarker{Version: version, At: at.Add(time.Duration(r.Int64N(int64(spread)))).Truncate(time.Millisecond), Resource: res, Attributes: attrs})
	}
	slices.SortFunc(out, func(a, b FalseMarker) int { return a.At.Compare(b.At) })
	return out
}

// falseMarkers writes the world's false markers as spans of the affected
// service, with ids from their own stream.
func (e *emitter) falseMarkers() {
	w := e.w
	r := rand.New(rand.NewPCG(w.Seed^0xfa15e1, uint64(w.Index)+11))
	hex := func(n int) string {
		const digits = "0123456789abcdef"
		b := make([]byte, n)
		for i := range b {
			b[i] = digits[r.IntN(16)]
		}
		return string(b)
	}
	for _, m := range w.FalseMarkers {
		res := map[string]any{"service.name": w.Topo.Affected}
		for k, v := range m.Resource {
			res[k] = v
		}
		attrs := map[string]any{"deployment.version": m.Version}
		for k, v := range m.Attributes {
			attrs[k] = v
		}
		e.span(hex(32), hex(16), "", "deployment.marker", kindInternal, m.At, 0, res, attrs)
	}
}

// WithoutFalseMarkers is w as it was drawn before false markers existed:
// no false marker, no client retries, neither variant. The false markers
// draw from their own streams, so the world written is byte for byte the
// one of before (the metamorphic test's subjects are those).
func (w World) WithoutFalseMarkers() World {
	w.FalseMarkers, w.ClientRetries = nil, 0
	w.Variants = slices.DeleteFunc(slices.Clone(w.Variants), func(v Variant) bool {
		return slices.Contains(falseVariants, v) || v == ClientRetries
	})
	return w
}
