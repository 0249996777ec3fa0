package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/incident"
)

// TestOverviewMeasuresNodeTraffic: a service of one version on three
// nodes, until a neighbour starved one of them; the overview counts each
// node's entry spans and errors since the onset. Red with
// sandbox.node_traffic.
func TestOverviewMeasuresNodeTraffic(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(49, 10))
	now := time.Date(2026, 12, 14, 16, 16, 0, 0, time.UTC)
	starved := now.Add(-10 * time.Minute)
	startsAt := starved.Add(5 * time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "noisy", Service: "api", Now: now}}
	nodes := []string{"w1", "w4", "w7"}
	for at := now.Add(-90 * time.Minute); at.Before(now); at = at.Add(time.Second) {
		node := nodes[r.IntN(3)]
		s := incident.Span{Timestamp: at, TraceID: hexID(r, 16), SpanID: hexID(r, 8), Name: "GET /v1/devices/:deviceId", Kind: 2, DurationNano: 9e6,
			Resource: map[string]string{"service.name": "api", "service.version": "6.3.1", "k8s.node.name": node}, Attributes: map[string]json.RawMessage{}}
		if node == "w7" && !at.Before(starved) {
			s.DurationNano = 2e9
			if r.Float64() < 0.3 {
				s.HasError, s.StatusCode, s.StatusMessage = true, 2, "HTTP 503"
			}
		}
		inc.Spans = append(inc.Spans, s)
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	h := newHarness(t, inc, startsAt)
	h.now = inc.Meta.Now
	out, err := h.run(t, contracts.ToolServiceOverview, `{"service":"api"}`)
	require.NoError(t, err)
	f := out.out.Facts
	require.NotNil(t, f.Onset, out.out.Compact)
	require.Len(t, f.NodeTraffic, 3, out.out.Compact)
	for _, n := range f.NodeTraffic {
		require.Equal(t, "6.3.1", n.Version)
		require.InDelta(t, 200, n.Requests, 50, out.out.Compact)
		if n.Node == "w7" {
			require.InDelta(t, 60, n.Errors, 20, out.out.Compact)
			continue
		}
		require.Zero(t, n.Errors, out.out.Compact)
	}
	require.Contains(t, out.out.Compact, "entry spans failed/served since the onset by node (k8s.node.name, else a machine's host.name) and version: w1 6.3.1 0/")
}

// machineSpans are a service of one version on three hosts named by
// host.name alone (res adds each span's other resource attributes), until
// something starved the third at starved: 30% of its requests fail since.
func machineSpans(now, starved time.Time, res map[string]string) []incident.Span {
	r := rand.New(rand.NewPCG(13, 52))
	hosts := []string{"vm-01", "vm-02", "vm-03"}
	var out []incident.Span
	for at := now.Add(-90 * time.Minute); at.Before(now); at = at.Add(time.Second) {
		host := hosts[r.IntN(3)]
		rs := map[string]string{"service.name": "ledger", "service.version": "2.16.1-1", "host.name": host}
		for k, v := range res {
			rs[k] = v
		}
		s := incident.Span{Timestamp: at, TraceID: hexID(r, 16), SpanID: hexID(r, 8), Name: "GET /v1/balances/{id}", Kind: 2, DurationNano: 9e6,
			Resource: rs, Attributes: map[string]json.RawMessage{}}
		if host == "vm-03" && !at.Before(starved) && r.Float64() < 0.3 {
			s.HasError, s.StatusCode, s.StatusMessage = true, 2, "HTTP 503"
		}
		out = append(out, s)
	}
	return out
}

// machineOverview runs the overview on machineSpans with res.
func machineOverview(t *testing.T, res map[string]string) contracts.Facts {
	t.Helper()
	now := time.Date(2026, 12, 7, 16, 40, 0, 0, time.UTC)
	starved := now.Add(-10 * time.Minute)
	startsAt := starved.Add(5 * time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "vm", Service: "ledger", Now: now}, Spans: machineSpans(now, starved, res)}
	inc.AlertJSON = alertOf(t, "ledger", startsAt)
	h := newHarness(t, inc, startsAt)
	h.now = inc.Meta.Now
	out, err := h.run(t, contracts.ToolServiceOverview, `{"service":"ledger"}`)
	require.NoError(t, err)
	require.NotNil(t, out.out.Facts.Onset, out.out.Compact)
	return out.out.Facts
}

// TestOverviewMeasuresMachineTraffic: on VMs with no Kubernetes
// (e2e/incidents-heldout13: host.name, host.arch, os.type) the host is the
// node; the overview counts each VM's entry spans and errors since the
// onset. Red with sandbox.node_host.
func TestOverviewMeasuresMachineTraffic(t *testing.T) {
	t.Parallel()
	for name, res := range map[string]map[string]string{
		"on premises": {"host.arch": "amd64", "os.type": "linux"},
		"ec2":         {"cloud.platform": "aws_ec2", "host.id": "i-0a1b2c3d4e5f60718", "host.type": "m6i.large"},
	} {
		f := machineOverview(t, res)
		require.Len(t, f.NodeTraffic, 3, name)
		for _, n := range f.NodeTraffic {
			require.Equal(t, "2.16.1-1", n.Version, name)
			if n.Node == "vm-03" {
				require.InDelta(t, 60, n.Errors, 25, name)
				continue
			}
			require.Zero(t, n.Errors, name)
		}
		c, ok := contracts.NodesConfined(f.NodeTraffic, "2.16.1-1")
		require.True(t, ok, name)
		require.Equal(t, []string{"vm-03"}, c.Nodes, name)
	}
}

// TestOverviewReadsNoReplicaAsANode: host.name names a replica, not a
// machine, on a pod's, a container's, an ECS task's or a function's spans,
// or where no host detector's attribute says it is a machine (heldout2's
// pods: host.name alone): one replica failing is no node's fault (it may
// be the release's canary), so no node traffic is read. Red with
// sandbox.node_host_machine.
func TestOverviewReadsNoReplicaAsANode(t *testing.T) {
	t.Parallel()
	for name, res := range map[string]map[string]string{
		"host.name alone":       {},
		"a pod":                 {"host.arch": "amd64", "k8s.pod.name": "ledger-7d9f-x2"},
		"a container":           {"host.arch": "amd64", "container.id": "3f4e5d6c7b8a"},
		"a docker compose name": {"host.arch": "amd64", "container.name": "ledger-1"},
		"an ecs task":           {"host.arch": "amd64", "aws.ecs.task.arn": "arn:aws:ecs:eu-west-1:1:task/c/abc"},
		"eks":                   {"host.arch": "amd64", "cloud.platform": "aws_eks"},
		"a function":            {"host.arch": "amd64", "faas.name": "ledger"},
	} {
		f := machineOverview(t, res)
		require.Nil(t, f.NodeTraffic, name)
	}
}
