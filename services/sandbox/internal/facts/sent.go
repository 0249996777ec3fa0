package facts

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// What a release sends (issue 35; docs/eval/generalisation.md, session 22):
// a prompt or configuration release changes what the service asks of a
// dependency from its first request (a longer prompt, more tokens allowed,
// a bigger body), while a dependency that slowed by itself is asked the
// same things before and after. The gate's change_slow_answered denies a
// change class when the slowed peer answered the running version's calls
// at its baseline before it slowed (heldout13's OpenSearch trap); it is
// lifted only when those very calls asked the peer for more, beyond
// chance, than the earlier versions' calls did (SentChanges).

// SentSizeKeys are the attributes of an outbound span that measure how
// much the call asks of its peer: the prompt's tokens (OpenTelemetry's
// GenAI conventions, their older name and OpenLLMetry's), the tokens it
// allows the answer, and the request body's bytes (HTTP's current and
// older names). Only a larger ask explains a slower answer from a peer
// doing the same work per unit: an attribute that says something else
// changed in the call (its temperature, a user agent naming the new
// version, a statement's text) is no reason for the peer to slow, and a
// release changes some such attribute on every call it makes
// (hand-written trap hw-trap-temperature-search-slowed).
var SentSizeKeys = []string{
	"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.usage.prompt_tokens",
	"gen_ai.request.max_tokens", "llm.request.max_tokens",
	"http.request.body.size", "http.request_content_length",
}

const (
	// MinSentCalls is how many calls each side must hold for the sizes to
	// be compared (the Mann-Whitney statistic's normal approximation holds
	// from about 8 a side).
	MinSentCalls = 8
	// SentZ is the one-sided Mann-Whitney z a larger ask must reach:
	// chance under 0.001.
	SentZ = 3.09
	// SentRatio is how much larger the running version's median ask must
	// be: a fifth, so that a real but slight shift (a longer system
	// prompt's few words) does not stand for a changed ask.
	SentRatio = 1.2
)

// SentCall is one outbound call's version, time, peer and numeric
// attributes.
type SentCall struct {
	At      time.Time
	Version string
	Peer    string
	Values  map[string]float64
}

// SentCallsOf reads the outbound calls of svc to peers among rows (their
// peer named by keys, CallPeer), each with its numeric attributes.
func SentCallsOf(rows []signoz.RawRow, svc string, peers, keys []string) []SentCall {
	var out []SentCall
	for _, r := range rows {
		d := r.Data
		if ResourceValue(d, "service.name") != svc || !outboundKind(d) {
			continue
		}
		p := CallPeer(d, keys)
		if !slices.Contains(peers, p) {
			continue
		}
		c := SentCall{At: RowTime(r), Version: ResourceValue(d, "service.version"), Peer: p, Values: map[string]float64{}}
		for _, m := range AttrMaps {
			mm, _ := d[m].(map[string]any)
			for k, v := range mm {
				if x, ok := number(v); ok {
					c.Values[k] = x
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// number is v as a finite number: a JSON number, decoded or not.
func number(v any) (float64, bool) {
	var x float64
	switch n := v.(type) {
	case float64:
		x = n
	case json.Number:
		f, err := n.Float64()
		if err != nil {
			return 0, false
		}
		x = f
	default:
		return 0, false
	}
	return x, !math.IsNaN(x) && !math.IsInf(x, 0)
}

// SentChanges compares, for each peer of slow (in order) and each size of
// SentSizeKeys, the running version's calls from its first served minute
// (since) up to the onset with the other versions' calls before since: a
// change when each side holds at least MinSentCalls calls, the running
// version's median is at least SentRatio times the others' and the
// one-sided Mann-Whitney z reaches SentZ. Calls after the onset are not
// read: a difference must be there from the release's first calls, while
// the peer still answered at its baseline, not arrive with the slowing.
func SentChanges(calls []SentCall, slow []string, running string, since, onset time.Time) []contracts.SentChange {
	if running == "" || since.IsZero() || onset.IsZero() {
		return nil
	}
	var out []contracts.SentChange
	for _, p := range slow {
		for _, k := range sentKeys(calls, p) {
			var before, after []float64
			for _, c := range calls {
				x, ok := c.Values[k]
				switch {
				case !ok || c.Peer != p:
				case c.Version == running && !c.At.Before(since) && c.At.Before(onset):
					after = append(after, x)
				case c.Version != running && c.At.Before(since):
					before = append(before, x)
				}
			}
			if ch, ok := sentChange(p, k, before, after); ok {
				out = append(out, ch)
			}
		}
	}
	return out
}

// sentKeys are the attributes compared on p's calls: SentSizeKeys, or,
// with the mutant sandbox.sent_size_only on, every numeric attribute the
// calls carry (sorted).
func sentKeys(calls []SentCall, p string) []string {
	if !mutant.Off(mutant.SandboxSentSizeOnly) {
		return SentSizeKeys
	}
	var ks []string
	for _, c := range calls {
		for k := range c.Values {
			if c.Peer == p && !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
	}
	sort.Strings(ks)
	return ks
}

// sentChange judges one size of one peer (SentChanges' thresholds).
func sentChange(peer, key string, before, after []float64) (contracts.SentChange, bool) {
	if len(before) < MinSentCalls || len(after) < MinSentCalls {
		return contracts.SentChange{}, false
	}
	mb, ma := Median(before), Median(after)
	z := mannWhitneyZ(before, after)
	if ma < SentRatio*mb || ma <= 0 || z < SentZ {
		return contracts.SentChange{}, false
	}
	return contracts.SentChange{Peer: peer, Attribute: key, BeforeCalls: len(before), BeforeMedian: mb, AfterCalls: len(after), AfterMedian: ma, Z: math.Round(z*100) / 100}, true
}

// mannWhitneyZ is the Mann-Whitney U statistic of after over before in
// standard units (normal approximation, ties ranked at their mean, the
// variance corrected for them): positive when after's values tend larger.
func mannWhitneyZ(before, after []float64) float64 {
	type v struct {
		x     float64
		after bool
	}
	all := make([]v, 0, len(before)+len(after))
	for _, x := range before {
		all = append(all, v{x, false})
	}
	for _, x := range after {
		all = append(all, v{x, true})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].x < all[j].x })
	n1, n2 := float64(len(after)), float64(len(before))
	n := n1 + n2
	var rankAfter, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		r, t := float64(i+j+1)/2, float64(j-i)
		ties += t*t*t - t
		for k := i; k < j; k++ {
			if all[k].after {
				rankAfter += r
			}
		}
		i = j
	}
	u := rankAfter - n1*(n1+1)/2
	sd := math.Sqrt(n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1))))
	if sd == 0 {
		return 0
	}
	return (u - n1*n2/2) / sd
}
