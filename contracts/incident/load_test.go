package incident_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

const valid = "testdata/retry-storm-01"

func TestLoadValidFolder(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load(valid)
	require.NoError(t, err)
	require.Equal(t, "retry-storm-01", inc.Meta.ID)
	require.Equal(t, "shop-api", inc.Meta.Service)
	require.Equal(t, time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC), inc.Meta.Now)
	require.Equal(t, incident.Expect{RootCause: "retry_storm", Verdict: "allow", FailedChecks: []string{}}, inc.Meta.Expect)
	require.Equal(t, []string{"shop-api"}, inc.Meta.SandboxServices)
	require.Equal(t, []incident.PriorAction{{Service: "payments", At: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}, inc.Meta.PriorActions)

	raw, err := os.ReadFile(filepath.Join(valid, "alert.json"))
	require.NoError(t, err)
	require.Equal(t, raw, inc.AlertJSON, "alert.json is kept byte for byte")

	require.Len(t, inc.Spans, 3, "blank lines are skipped")
	marker := inc.Spans[0]
	require.Equal(t, "deployment.marker", marker.Name)
	require.Equal(t, "shop-api", marker.Service())
	require.Equal(t, `"v2"`, string(marker.Attributes["deployment.version"]))
	require.Equal(t, "4", inc.Spans[1].Resource["host.cpu.count"], "non-string resource values are stringified")
	require.Equal(t, "true", inc.Spans[1].Resource["k8s.ready"])
	require.Equal(t, int64(100000000), inc.Spans[2].DurationNano, "a numeric string is accepted")
	require.Equal(t, 3, inc.Spans[2].Kind)

	require.Len(t, inc.Logs, 2)
	require.Equal(t, `{"msg":"structured body"}`, inc.Logs[1].Body)

	require.Equal(t, "shop", inc.Releases.Project)
	require.Len(t, inc.Releases.Services["shop-api"], 2)
	require.Equal(t, "agentk-demo/shop-api:v1", inc.Releases.Services["shop-api"][0].Image)
}

// TestLoadManifestSkipsOnlyTheTelemetry: LoadManifest reads what Load reads
// but the spans and logs, and still refuses a broken manifest (a broken
// spans.jsonl is not its concern).
func TestLoadManifestSkipsOnlyTheTelemetry(t *testing.T) {
	t.Parallel()
	full, err := incident.Load(valid)
	require.NoError(t, err)
	dir := copyValid(t, "retry-storm-01")
	edit(t, dir, "spans.jsonl", `"duration_nano"`, `"duration_nano": "soon", "x"`)
	_, err = incident.Load(dir)
	require.Error(t, err, "the edit breaks the spans")
	man, err := incident.LoadManifest(dir)
	require.NoError(t, err)
	require.Empty(t, man.Spans)
	require.Empty(t, man.Logs)
	man.Dir, man.Spans, man.Logs = full.Dir, full.Spans, full.Logs
	require.Equal(t, full, man)

	edit(t, dir, "releases.yaml", "project: shop", "project: [")
	_, err = incident.LoadManifest(dir)
	require.ErrorIs(t, err, incident.ErrInvalid)
}

// copyValid copies the valid folder to a temporary folder named name.
func copyValid(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	entries, err := os.ReadDir(valid)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(valid, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
	}
	return dir
}

func edit(t *testing.T, dir, file, old, new string) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Contains(t, string(b), old, "test edit of %s", file)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644))
}

func TestLoadRefusesBrokenFolders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		folder string
		break_ func(t *testing.T, dir string)
		want   []string
	}{
		{name: "id differs from folder", folder: "other-name",
			want: []string{`incident.yaml:1: field "id": "retry-storm-01" does not equal the folder name "other-name"`}},
		{name: "missing spans.jsonl", break_: func(t *testing.T, d string) { require.NoError(t, os.Remove(filepath.Join(d, "spans.jsonl"))) },
			want: []string{"spans.jsonl: required file missing"}},
		{name: "missing releases.yaml and alert.json", break_: func(t *testing.T, d string) {
			require.NoError(t, os.Remove(filepath.Join(d, "releases.yaml")))
			require.NoError(t, os.Remove(filepath.Join(d, "alert.json")))
		}, want: []string{"alert.json: required file missing", "releases.yaml: required file missing"}},
		{name: "logs.jsonl is optional", break_: func(t *testing.T, d string) { require.NoError(t, os.Remove(filepath.Join(d, "logs.jsonl"))) }},
		{name: "verdict not allow or deny", break_: func(t *testing.T, d string) { edit(t, d, "incident.yaml", "verdict: allow", "verdict: maybe") },
			want: []string{`incident.yaml:7: field "expect.verdict": "maybe" is not allow or deny`}},
		{name: "root cause outside the catalogue", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "root_cause: retry_storm", "root_cause: gremlins")
		},
			want: []string{`incident.yaml:6: field "expect.root_cause": "gremlins" is not in the catalogue (or unknown)`}},
		{name: "root cause unknown is fine", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "root_cause: retry_storm", "root_cause: unknown")
		}},
		{name: "failed checks with allow", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "failed_checks: []", "failed_checks: [cooldown]")
		},
			want: []string{`incident.yaml:8: field "expect.failed_checks": must be empty when verdict is allow`}},
		{name: "failed check that is no check", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "verdict: allow\n  failed_checks: []", "verdict: deny\n  failed_checks:\n    - cooldown\n    - vibes")
		}, want: []string{`incident.yaml:10: field "expect.failed_checks[1]": "vibes" is not a gate check`}},
		{name: "culprit of releases.yaml", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "  failed_checks: []\n", "  failed_checks: []\n  culprit:\n    service: payments\n    verdict: allow\n")
		}},
		{name: "culprit outside releases.yaml", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "  failed_checks: []\n", "  failed_checks: []\n  culprit:\n    service: ledger\n    verdict: allow\n")
		}, want: []string{`incident.yaml:10: field "expect.culprit.service": "ledger" is not a service of releases.yaml (payments, shop-api)`}},
		{name: "culprit without service", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "  failed_checks: []\n", "  failed_checks: []\n  culprit:\n    verdict: deny\n")
		}, want: []string{`incident.yaml:10: field "expect.culprit.service": required`}},
		{name: "culprit verdict not allow or deny", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "  failed_checks: []\n", "  failed_checks: []\n  culprit:\n    service: payments\n    verdict: blame\n")
		}, want: []string{`incident.yaml:11: field "expect.culprit.verdict": "blame" is not allow or deny`}},
		{name: "culprit not a mapping", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "  failed_checks: []\n", "  failed_checks: []\n  culprit: payments\n")
		}, want: []string{"incident.yaml:", "not valid YAML"}},
		{name: "now not RFC 3339", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "now: 2026-11-30T10:20:00Z", "now: 30/11/2026 10:20")
		},
			want: []string{`incident.yaml:4: field "now": not RFC 3339`}},
		{name: "service missing", break_: func(t *testing.T, d string) { edit(t, d, "incident.yaml", "service: shop-api\n", "") },
			want: []string{`incident.yaml: field "service": required`}},
		{name: "prior action after now", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "at: 2026-11-30T09:00:00Z", "at: 2026-11-30T11:00:00Z")
		},
			want: []string{`incident.yaml:13: field "prior_actions[0].at": after now`}},
		{name: "yaml syntax error", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "tags: [deployment, seed]", "tags: [deployment, seed")
		},
			want: []string{"incident.yaml:", "not valid YAML"}},
		{name: "span timestamp not RFC 3339", break_: func(t *testing.T, d string) {
			edit(t, d, "spans.jsonl", `"2026-11-30T10:05:01.130000Z"`, `"yesterday"`)
		},
			want: []string{`spans.jsonl:4: field "timestamp": not RFC 3339`}},
		{name: "span kind out of range", break_: func(t *testing.T, d string) { edit(t, d, "spans.jsonl", `"kind":2`, `"kind":9`) },
			want: []string{`spans.jsonl:2: field "kind": 9 out of range 0..5`}},
		{name: "span status out of range", break_: func(t *testing.T, d string) {
			edit(t, d, "spans.jsonl", `"status_code":2,"status_message":"upstream`, `"status_code":3,"status_message":"upstream`)
		},
			want: []string{`spans.jsonl:2: field "status_code": 3 out of range 0..2`}},
		{name: "span trace id not hex", break_: func(t *testing.T, d string) {
			edit(t, d, "spans.jsonl", `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"`, `"trace_id":"xyz"`)
		},
			want: []string{`spans.jsonl:1: field "trace_id": not 32 hex digits`}},
		{name: "span without service.name", break_: func(t *testing.T, d string) {
			edit(t, d, "spans.jsonl", `"resource":{"service.name":"shop-api"},"attributes":{}}`, `"resource":{},"attributes":{}}`)
		},
			want: []string{`spans.jsonl:4: field "resource.service.name": required`}},
		{name: "span line not json", break_: func(t *testing.T, d string) { edit(t, d, "spans.jsonl", "\n\n", "\n{oops\n") },
			want: []string{"spans.jsonl:3: not a JSON object"}},
		{name: "span name not a string", break_: func(t *testing.T, d string) { edit(t, d, "spans.jsonl", `"name":"POST /ask"`, `"name":42`) },
			want: []string{`spans.jsonl:2: field "name": not a string`}},
		{name: "log timestamp missing", break_: func(t *testing.T, d string) { edit(t, d, "logs.jsonl", `"timestamp":"2026-11-30T10:06:01Z",`, "") },
			want: []string{`logs.jsonl:2: field "timestamp": required`}},
		{name: "releases out of order", break_: func(t *testing.T, d string) {
			edit(t, d, "releases.yaml", "deployed_at: 2026-11-30T10:02:00Z", "deployed_at: 2026-11-30T07:00:00Z")
		},
			want: []string{`releases.yaml:9: field "services.shop-api[1].deployed_at": earlier than the release before it`}},
		{name: "release without image", break_: func(t *testing.T, d string) {
			edit(t, d, "releases.yaml", "      image: agentk-demo/payments:v7\n", "")
		},
			want: []string{`releases.yaml:11: field "services.payments[0].image": required`}},
		{name: "alert.json not json", break_: func(t *testing.T, d string) { edit(t, d, "alert.json", `"receiver": "agentk",`, `"receiver": agentk,`) },
			want: []string{"alert.json:2: not a JSON object"}},
		{name: "alert.json without alerts", break_: func(t *testing.T, d string) {
			require.NoError(t, os.WriteFile(filepath.Join(d, "alert.json"), []byte(`{"version":"4","alerts":[]}`), 0o644))
		}, want: []string{`alert.json: field "alerts": required: at least one alert`}},
		{name: "every problem at once", break_: func(t *testing.T, d string) {
			edit(t, d, "incident.yaml", "verdict: allow", "verdict: maybe")
			edit(t, d, "spans.jsonl", `"kind":2`, `"kind":9`)
		}, want: []string{`field "expect.verdict"`, `spans.jsonl:2: field "kind"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			folder := tc.folder
			if folder == "" {
				folder = "retry-storm-01"
			}
			dir := copyValid(t, folder)
			if tc.break_ != nil {
				tc.break_(t, dir)
			}
			inc, err := incident.Load(dir)
			if len(tc.want) == 0 {
				require.NoError(t, err)
				require.NotNil(t, inc)
				return
			}
			require.ErrorIs(t, err, incident.ErrInvalid)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

func TestLoadCorpus(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, name := range []string{"retry-storm-01", "b-second"} {
		src := copyValid(t, name)
		require.NoError(t, os.Rename(src, filepath.Join(root, name)))
	}
	edit(t, filepath.Join(root, "b-second"), "incident.yaml", "id: retry-storm-01", "id: b-second")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "_drafts"), 0o755))

	incs, err := incident.LoadCorpus(root)
	require.NoError(t, err)
	require.Len(t, incs, 2)
	require.Equal(t, "b-second", incs[0].Meta.ID)

	edit(t, filepath.Join(root, "b-second"), "incident.yaml", "verdict: allow", "verdict: nope")
	_, err = incident.LoadCorpus(root)
	require.ErrorIs(t, err, incident.ErrInvalid)
	require.ErrorContains(t, err, `field "expect.verdict"`)

	_, err = incident.LoadCorpus(t.TempDir())
	require.ErrorIs(t, err, incident.ErrInvalid)
}

// TestLoadCulprit: expect.culprit is read into Expect.Culprit; without it
// Culprit stays nil (the incident is about the alerted service alone).
func TestLoadCulprit(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load(valid)
	require.NoError(t, err)
	require.Nil(t, inc.Meta.Expect.Culprit)

	dir := copyValid(t, "retry-storm-01")
	edit(t, dir, "incident.yaml", "  failed_checks: []\n", "  failed_checks: []\n  culprit: {service: payments, verdict: deny}\n")
	inc, err = incident.Load(dir)
	require.NoError(t, err)
	require.Equal(t, &incident.Culprit{Service: "payments", Verdict: "deny"}, inc.Meta.Expect.Culprit)
}
