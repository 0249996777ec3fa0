package tools

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// respOf is a response of one result with body b.
func respOf(b string) signoz.Response {
	var r signoz.Response
	r.Type = "time_series"
	r.Data.Results = []json.RawMessage{json.RawMessage(b)}
	return r
}

// An overview's input is kept by its bytes: the same call and answers at
// other addresses (another replay's) are the same input; any call field,
// the rule read, an answer's byte or a refusal makes another.
func TestOverviewMemoKeysByTheWholeInput(t *testing.T) {
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	call := Call{Tool: "service_overview", Service: "shop-api", StartsAt: at, Rule: &RuleRead{Unread: "no rule"}}
	resps := []signoz.Response{respOf(`{"a":1}`), respOf(`{"b":2}`)}
	qual := []signoz.Response{respOf(`{"q":3}`)}
	in, ok := newOverviewInput(call, resps, qual)
	require.True(t, ok)
	clone := func(rs []signoz.Response) []signoz.Response {
		out := slices.Clone(rs)
		for i := range out {
			out[i].Data.Results = []json.RawMessage{slices.Clone(rs[i].Data.Results[0])}
		}
		return out
	}
	c2 := call
	c2.Rule = &RuleRead{Unread: "no rule"}
	same, _ := newOverviewInput(c2, clone(resps), clone(qual))
	require.True(t, in.same(&same))
	require.Equal(t, in.sum(overviewSeed), same.sum(overviewSeed))

	other := func(c Call, rs, q []signoz.Response) {
		t.Helper()
		o, ok := newOverviewInput(c, rs, q)
		require.True(t, ok)
		require.False(t, in.same(&o))
	}
	later := call
	later.StartsAt = at.Add(time.Minute)
	other(later, resps, qual)
	svc := call
	svc.Service = "payments"
	other(svc, resps, qual)
	unread := call
	unread.Rule = &RuleRead{Unread: "another reason"}
	other(unread, resps, qual)
	noRule := call
	noRule.Rule = nil
	other(noRule, resps, qual)
	changed := clone(resps)
	changed[1].Data.Results[0][5] = '3'
	other(call, changed, qual)
	refused := clone(qual)
	refused[0].Refused = "no"
	other(call, resps, refused)
	other(call, resps, nil)
}
