package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// The callee twins of e2e/incidents-heldout2's
// ho2-bad-bundle-quantities-storefront-pricing (issue 35 item 5): storefront
// 5.14.0 sends bundle quantities pricing refuses (422), pricing's other
// caller (larder-beat) goes on as before. The sandbox reads such a callee as
// an effect of the caller, not a shared cause, from its answers
// (services/sandbox/internal/facts/refused.go): a refusal status, its other
// callers' errors and its latency held, and the gate reads its release
// ledger. Each twin below changes only the callee's side, and every one is
// a regression of pricing's own that rolling storefront back would not fix.
//
// Every twin is built on the "early" twin: the same world with storefront's
// marker and ledger start 30 s earlier (10:19:58, 33 s before 5.14.0's first
// span), so that the marker precedes the onset and nothing but the callee's
// reading stands between an investigator's release claim and a rollback (in
// the recorded incident the refined onset lands a second before the marker,
// and every twin would be denied for that alone).
const bundle = "ho2-bad-bundle-quantities-storefront-pricing"

// bundleRelease is storefront 5.14.0's start in the early twin.
var bundleRelease = time.Date(2026, 12, 1, 10, 19, 58, 5114330, time.UTC)

// calleeTwins are the twins' edits of the early twin, by name.
var calleeTwins = []struct {
	name string
	edit func(*incident.Incident)
}{
	// pricing 2026.12.01.1 (ledger and marker at 10:19:40, 18 s before
	// storefront's harmless release) rejects the bundle quantities as
	// strings that storefront has always sent: pricing's release is what
	// refuses them (the gate's refused-origin check reads its ledger).
	{"pricing-release", pricingReleases},
	// pricing rate-limits storefront's quotes (429): its operators' quota.
	{"rate-limit", func(inc *incident.Incident) {
		bundleStatus(inc, "429", "429 Too Many Requests: quote quota for storefront exceeded", "throttled quote request from storefront: quota exceeded")
	}},
	// pricing fails storefront's quotes (503): an outage of its quote path.
	{"outage", func(inc *incident.Incident) {
		bundleStatus(inc, "503", "503 Service Unavailable: quote engine unavailable", "quote engine unavailable while handling /v1/quote")
	}},
	// pricing refuses larder-beat's batch quotes too: it refuses everybody.
	{"refuses-all", func(inc *incident.Incident) {
		inc.Spans = larderBeatSince(inc.Spans, func(s incident.Span) incident.Span {
			s.HasError, s.StatusCode = true, 2
			s.Attributes = maps.Clone(s.Attributes)
			s.Attributes["http.status_code"] = json.RawMessage("422")
			return s
		})
	}},
	// pricing slows for larder-beat (its batch quotes five times slower)
	// while it refuses storefront's quotes: its own trouble.
	{"slows", func(inc *incident.Incident) {
		inc.Spans = larderBeatSince(inc.Spans, func(s incident.Span) incident.Span {
			s.DurationNano *= 5
			return s
		})
	}},
}

// loadEarlyBundle loads the bundle incident with storefront's marker and
// ledger start moved to bundleRelease (writeTwin writes it: the replay's
// deployer seeds its ledger from the folder's releases.yaml).
func loadEarlyBundle(t *testing.T) *incident.Incident {
	t.Helper()
	return loadMovedRelease(t, filepath.Join(heldout2, bundle), "storefront", "5.14.0", bundleRelease)
}

// loadMovedRelease loads the incident in dir, which must expect allow, with
// svc's deployment.marker spans and the ledger's start of its running
// release (which must be version) moved to at.
func loadMovedRelease(t *testing.T, dir, svc, version string, at time.Time) *incident.Incident {
	t.Helper()
	inc, err := incident.Load(dir)
	require.NoError(t, err)
	require.Equal(t, "allow", inc.Meta.Expect.Verdict)
	moved := false
	for i, s := range inc.Spans {
		if s.Name == "deployment.marker" && s.Service() == svc {
			inc.Spans[i].Timestamp, moved = at, true
		}
	}
	rel := inc.Releases.Services[svc]
	last := &rel[len(rel)-1]
	require.True(t, moved)
	require.Equal(t, version, last.Version)
	last.DeployedAt = at
	return inc
}

// TestCalleeTwinsOfHeldout2AreDenied replays the early twin and each of
// calleeTwins with every investigator. The early twin is the release:
// persona:oracle must allow it (pricing's 422s answer storefront's new
// requests, pricing is no shared cause), so the twins stand on the callee's
// reading alone. No investigator may roll a twin back; its expected root
// cause stays the release's, the claim that would buy the rollback, so
// persona:oracle makes it. Kills mutant sandbox.refusal_class (the 429 and
// 503 twins are read as refusals and rolled back).
func TestCalleeTwinsOfHeldout2AreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the callee twins of the heldout2 corpus; skipped with -short")
	}
	dir := t.TempDir()
	early := loadEarlyBundle(t)
	incs := []*incident.Incident{writeTwin(t, dir, early, bundle+"-early-twin")}
	for _, tw := range calleeTwins {
		inc := loadEarlyBundle(t)
		tw.edit(inc)
		inc.Meta.Expect.Verdict = "deny"
		incs = append(incs, writeTwin(t, dir, inc, bundle+"-"+tw.name+"-twin"))
	}
	invs := append([]string{"rules", "persona:oracle", "persona:wrong", "persona:quality"}, hostilePersonas()...)
	outs := evalRetrying(t, incs, invs)
	holdSafe(t, "heldout2-callee-twins", outs)
	for _, o := range outs {
		if o.Investigator == "persona:oracle" && o.Incident == incs[0].Meta.ID {
			require.Equal(t, "allow", o.Verdict, "the early twin is the release: pricing refuses storefront's new requests and is no shared cause (failed: %v)", o.FailedChecks)
		}
	}
}

// pricingReleases gives pricing a release 18 s before storefront's: a
// ledger entry, a marker, and its spans from then on of the new version.
// Rolling pricing back is the right move (expect.culprit).
func pricingReleases(inc *incident.Incident) {
	at := bundleRelease.Add(-18 * time.Second)
	inc.Releases.Services["pricing"] = append(inc.Releases.Services["pricing"],
		incident.ReleaseEntry{Version: "2026.12.01.1", Image: "registry.larder.internal/pricing:2026.12.01.1", DeployedAt: at})
	var marker incident.Span
	for i, s := range inc.Spans {
		if s.Name == "deployment.marker" && s.Service() == "storefront" {
			marker = s
		}
		if s.Service() == "pricing" && !s.Timestamp.Before(at) {
			inc.Spans[i].Resource = maps.Clone(s.Resource)
			inc.Spans[i].Resource["service.version"] = "2026.12.01.1"
		}
	}
	marker.Timestamp, marker.TraceID, marker.SpanID = at, "5ae1d0c2a3b84f6e9d7c1b2a3f4e5d6c", "7b1c2d3e4f5a6b7c"
	marker.Resource = map[string]string{"service.name": "pricing", "service.version": "2026.12.01.1", "deployment.environment": "prod",
		"telemetry.sdk.language": "python", "host.name": "pricing-5cc8-q2wz"}
	marker.Attributes = map[string]json.RawMessage{"deployment.version": json.RawMessage(`"2026.12.01.1"`),
		"deployment.previous_version": json.RawMessage(`"2026.11.25.3"`), "deployment.environment": json.RawMessage(`"prod"`)}
	inc.Spans = append(inc.Spans, marker)
	slices.SortStableFunc(inc.Spans, func(a, b incident.Span) int { return a.Timestamp.Compare(b.Timestamp) })
	inc.Meta.Expect.Culprit = &incident.Culprit{Service: "pricing", Verdict: "allow"}
}

// bundleStatus sets the HTTP status of storefront's refused calls to
// pricing and of pricing's answers to them (the 422s) to code, pricing's
// status message to msg, and the logs that named the 422 to say so too
// (pricing's warning becomes logged, storefront's error names code).
func bundleStatus(inc *incident.Incident, code, msg, logged string) {
	for i, s := range inc.Spans {
		if !s.HasError || s.Service() == "larder-beat" || string(s.Attributes["http.status_code"]) != "422" {
			continue
		}
		inc.Spans[i].Attributes = maps.Clone(s.Attributes)
		inc.Spans[i].Attributes["http.status_code"] = json.RawMessage(code)
		switch s.Kind {
		case 2:
			inc.Spans[i].StatusMessage = msg
		case 3:
			inc.Spans[i].StatusMessage = "Request failed with status code " + code
		}
	}
	for i, l := range inc.Logs {
		switch {
		case strings.HasPrefix(l.Body, "rejected quote request"):
			inc.Logs[i].Body, inc.Logs[i].SeverityText = logged, "ERROR"
		case strings.Contains(l.Body, "pricing answered 422"):
			inc.Logs[i].Body = strings.ReplaceAll(l.Body, "422", code)
		}
	}
}

// larderBeatSince applies f to every span of larder-beat's traces that
// begin at or after storefront's release (its calls to pricing and
// pricing's answers).
func larderBeatSince(spans []incident.Span, f func(incident.Span) incident.Span) []incident.Span {
	traces := map[string]bool{}
	for _, s := range spans {
		if s.Service() == "larder-beat" && s.ParentSpanID == "" && !s.Timestamp.Before(bundleRelease) {
			traces[s.TraceID] = true
		}
	}
	for i, s := range spans {
		if traces[s.TraceID] {
			spans[i] = f(s)
		}
	}
	return spans
}

// writeTwin writes inc as the incident folder dir/id (incident.yaml,
// alert.json, releases.yaml, spans and logs) and loads it back with the
// format's own loader.
func writeTwin(t *testing.T, dir string, inc *incident.Incident, id string) *incident.Incident {
	t.Helper()
	d := filepath.Join(dir, id)
	require.NoError(t, os.MkdirAll(d, 0o755))
	m := inc.Meta
	var meta strings.Builder
	fmt.Fprintf(&meta, "id: %s\ntitle: %q\nservice: %s\nnow: %s\nexpect:\n  root_cause: %s\n  verdict: %s\n",
		id, m.Title, m.Service, m.Now.Format(time.RFC3339Nano), m.Expect.RootCause, m.Expect.Verdict)
	if c := m.Expect.Culprit; c != nil {
		fmt.Fprintf(&meta, "  culprit:\n    service: %s\n    verdict: %s\n", c.Service, c.Verdict)
	}
	fmt.Fprintf(&meta, "tags: [%s]\n", strings.Join(m.Tags, ", "))
	var rel strings.Builder
	fmt.Fprintf(&rel, "project: %s\nservices:\n", inc.Releases.Project)
	for _, svc := range slices.Sorted(maps.Keys(inc.Releases.Services)) {
		fmt.Fprintf(&rel, "  %s:\n", svc)
		for _, r := range inc.Releases.Services[svc] {
			fmt.Fprintf(&rel, "    - version: %q\n      image: %s\n      deployed_at: %q\n", r.Version, r.Image, r.DeployedAt.Format(time.RFC3339Nano))
		}
	}
	files := map[string][]byte{"incident.yaml": []byte(meta.String()), "alert.json": inc.AlertJSON, "releases.yaml": []byte(rel.String()),
		"spans.jsonl": jsonLines(t, inc.Spans), "logs.jsonl": jsonLines(t, inc.Logs)}
	for name, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(d, name), b, 0o644))
	}
	out, err := incident.Load(d)
	require.NoError(t, err)
	return out
}

// jsonLines encodes xs one JSON object a line.
func jsonLines[T any](t *testing.T, xs []T) []byte {
	t.Helper()
	var b []byte
	for _, x := range xs {
		line, err := json.Marshal(x)
		require.NoError(t, err)
		b = append(append(b, line...), '\n')
	}
	return b
}
