package tools_test

import (
	"encoding/json"
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// editAWSSpans returns a spans edit applying edit to every span of svc whose
// attribute rpc.system is aws-api (the AWS SDK's spans).
func editAWSSpans(svc string, edit func(incident.Span) incident.Span) func([]incident.Span) []incident.Span {
	return func(spans []incident.Span) []incident.Span {
		for i, s := range spans {
			if s.Service() == svc && string(s.Attributes["rpc.system"]) == `"aws-api"` {
				spans[i] = edit(s)
			}
		}
		return spans
	}
}

// withAttr returns a span's edit that sets the string attribute key.
func withAttr(key, value string) func(incident.Span) incident.Span {
	return func(s incident.Span) incident.Span {
		attrs := map[string]json.RawMessage{}
		for k, v := range s.Attributes {
			attrs[k] = v
		}
		b, _ := json.Marshal(value)
		attrs[key] = b
		s.Attributes = attrs
		return s
	}
}

// TestAWSSDKPeers: the AWS SDK instrumentations write rpc.system aws-api,
// rpc.service and no host, so on heldout7's twins (a DynamoDB table a
// Lambda's scans throttle, an S3 prefix answering SlowDown) the managed
// service is named by rpc.service and is a failing dependency with its own
// failure. A span that names its host is that host's (not counted twice
// under rpc.service); an rpc.service without rpc.system aws-api (gRPC's)
// names no peer. On main before this reading, and with mutant
// sandbox.aws_peers, neither DynamoDB nor S3 was a dependency at all.
func TestAWSSDKPeers(t *testing.T) {
	t.Parallel()
	const (
		ddb = "incidents-heldout7-twins/lm7-twin-ddb-throttle-after-rollout-entitlements-api"
		s3  = "incidents-heldout7-twins/lm7-twin-s3-slowdown-heavier-downloads-api"
	)
	keep := func(s incident.Span) incident.Span { return s }
	cases := []struct {
		name, dir, svc string
		edit           func(incident.Span) incident.Span
		failing        string
		notFailing     []string
	}{
		{"a throttled table is a failing dependency", ddb, "entitlements-api", keep, "DynamoDB", nil},
		{"a bucket answering SlowDown is a failing dependency", s3, "downloads-api", keep, "S3", nil},
		{"a span naming its host is the host's", ddb, "entitlements-api", withAttr("net.peer.name", "dynamodb.eu-west-1.amazonaws.com"),
			"dynamodb.eu-west-1.amazonaws.com", []string{"DynamoDB"}},
		{"gRPC's rpc.service names no peer", ddb, "entitlements-api", withAttr("rpc.system", "grpc"), "", []string{"DynamoDB"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := editedOverview(t, tc.dir, editAWSSpans(tc.svc, tc.edit))
			if tc.failing != "" {
				require.Contains(t, out.Facts.FailingDependencies, tc.failing, out.Compact)
				require.Contains(t, out.Facts.DependencyFaults, tc.failing, out.Compact)
			}
			for _, p := range tc.notFailing {
				require.NotContains(t, out.Facts.FailingDependencies, p, out.Compact)
				require.NotContains(t, out.Facts.SlowDependencies, p, out.Compact)
			}
		})
	}
}
