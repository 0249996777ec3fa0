package tools_test

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// editGCPSpans returns a spans edit applying edit to every span of svc that
// carries gcp.client.service (Google Cloud's client libraries' own spans).
func editGCPSpans(svc string, edit func(incident.Span) incident.Span) func([]incident.Span) []incident.Span {
	return func(spans []incident.Span) []incident.Span {
		for i, s := range spans {
			if _, ok := s.Attributes["gcp.client.service"]; ok && s.Service() == svc {
				spans[i] = edit(s)
			}
		}
		return spans
	}
}

// asClient returns edit followed by setting the span's kind to client (3).
func asClient(edit func(incident.Span) incident.Span) func(incident.Span) incident.Span {
	return func(s incident.Span) incident.Span {
		s = edit(s)
		s.Kind = 3
		return s
	}
}

// TestGCPClientPeers: Google Cloud's client libraries trace their calls
// with gcp.client.service (spanner, storage) and no host, so on heldout8's
// Spanner trap (the instance answering UNAVAILABLE to 45% of calls a minute
// after accounts-go 7.3.1 rolled out) Spanner is named by gcp.client.service
// and is a failing dependency with its own failure, although those spans
// are internal (the libraries' default kind). A client span that names its
// host is that host's (not counted twice under gcp.client.service). On main before this reading, and
// with mutant sandbox.gcp_client_peers, Spanner was no dependency at all.
func TestGCPClientPeers(t *testing.T) {
	t.Parallel()
	const spanner = "incidents-heldout8/qh8-trap-spanner-unavailable-accounts-go"
	keep := func(s incident.Span) incident.Span { return s }
	cases := []struct {
		name       string
		edit       func(incident.Span) incident.Span
		failing    string
		notFailing []string
	}{
		{"an instance answering UNAVAILABLE is a failing dependency", keep, "spanner", nil},
		{"a client span naming its host is the host's", asClient(withAttr("server.address", "spanner.googleapis.com")),
			"spanner.googleapis.com", []string{"spanner"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := editedOverview(t, spanner, editGCPSpans("accounts-go", tc.edit))
			require.Contains(t, out.Facts.FailingDependencies, tc.failing, out.Compact)
			require.Contains(t, out.Facts.DependencyFaults, tc.failing, out.Compact)
			for _, p := range tc.notFailing {
				require.NotContains(t, out.Facts.FailingDependencies, p, out.Compact)
				require.NotContains(t, out.Facts.SlowDependencies, p, out.Compact)
			}
		})
	}
}
