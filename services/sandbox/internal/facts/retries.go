package facts

import (
	"math"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Retries in every form: a retry storm is retries per inbound request rising
// against the baseline. Client spans per peer count the retries of a client
// that makes one span per attempt (PeakCallRatio); a client that retries
// inside one span shows them instead as an attribute counting the attempts
// or retries of that span, or as log lines of its SDK. The overview counts
// each of these per minute and reports the source whose retries per inbound
// request rose most since the onset.

// Retry-rise minimums: a source counts only with MinRetryEvents retries
// since the onset and MinRetryInbound sampled inbound requests on each side.
const (
	MinRetryEvents  = 5
	MinRetryInbound = 10
)

// AddRetryAttempts adds to each peer's calls per minute the retries its
// client spans counted (resps: tools' retryPeerQueries' answers, in order,
// by peerKeys): a retried call is as many calls as attempts, whether the
// client wrote one span per attempt or one span with a retry count. A peer named under an
// earlier key is counted once (peerSeries' rule).
func AddRetryAttempts(byPeer map[string][]Minute, resps []signoz.Response, peerKeys []string) error {
	if mutant.Off(mutant.SandboxRetryAttempts) {
		return nil
	}
	seen := map[string]int{}
	for i, r := range resps {
		if r.Refused != "" {
			continue
		}
		key := peerKeys[i%len(peerKeys)]
		err := Samples(r, LabelOf(key), func(peer string, _ int, ts int64, v float64) {
			if first, ok := seen[peer]; ok && first != i%len(peerKeys) {
				return
			}
			seen[peer] = i % len(peerKeys)
			ms := byPeer[peer]
			for j := range ms {
				if ms[j].At.UnixMilli() == ts {
					ms[j].Requests += v
					ms[j].Retries += v
					return
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// RetryRise reads the retry series (attrs: one per key, in tools' retryAttrQueries
// order; logs: retryLogQuery's) and the inbound requests per minute
// (roots), and returns the source whose retries
// per inbound request rose most from the onset's baseline to the onset on;
// nil when no source holds the minimums or rose significantly
// (retriesHold). An attribute counting attempts
// (the first is 1) sums to about the requests in the baseline and rises as
// the attempts do: the ratio reads it as it reads a count of retries. A
// baseline with no retry counts as half of one (a rise from none is finite).
func RetryRise(keys []string, attrs []signoz.Response, logs signoz.Response, roots []Minute, on Onset) (*contracts.RetryRise, error) {
	resps := append(slices.Clone(attrs[:min(len(attrs), len(keys))]), logs)
	inBase, inSince := splitSum(roots, on, func(m Minute) float64 { return m.Requests })
	if inBase < MinRetryInbound || inSince < MinRetryInbound {
		return nil, nil
	}
	answered := 0
	for _, r := range resps {
		if r.Refused == "" {
			answered++
		}
	}
	alpha := RetryRiseLevel / float64(max(1, answered))
	q := inSince / (inBase + inSince)
	var best *contracts.RetryRise
	for i, r := range resps {
		if r.Refused != "" {
			continue
		}
		var base, since float64
		err := Samples(r, func(signoz.Series) string { return "all" }, func(_ string, _ int, ts int64, v float64) {
			at := time.UnixMilli(ts)
			switch {
			case at.Before(on.BaselineFrom):
			case at.Before(*on.At):
				base += v
			default:
				since += v
			}
		})
		if err != nil {
			return nil, err
		}
		attr := i < len(resps)-1
		if since < MinRetryEvents || (attr && mutant.Off(mutant.SandboxRetryAttributes)) || !retriesHold(base, since, q, alpha) {
			continue
		}
		source, key := "attribute", ""
		if attr {
			key = keys[i]
		} else {
			source, key = "logs", "retry log lines"
		}
		perBase := math.Max(base, 0.5) / inBase
		perSince := since / inSince
		rise := &contracts.RetryRise{Source: source, Key: key, Since: round(perSince), Baseline: round(base / inBase), Events: int64(math.Round(since)), Ratio: round(perSince / perBase)}
		if best == nil || rise.Ratio > best.Ratio {
			best = rise
		}
	}
	return best, nil
}

// RetryRiseLevel is the significance level, over every source looked at
// (Bonferroni), at which RetryRise reports a source's rise of its retries
// per inbound request.
const RetryRiseLevel = 0.01

// retriesHold reports whether a source's retries per inbound request did
// not rise, or rose significantly at level alpha: the retries since the
// onset among all of them (binomial tail) against q, the inbound requests'
// share since the onset; PeakCalls' test (callsHold) for the calls. 10
// retries on 100 requests before and 5 on 20 after read 2.5x, over the
// gate's 2x, at p ≈ 0.09: a handful of retries is no storm.
func retriesHold(base, since, q, alpha float64) bool {
	if mutant.Off(mutant.SandboxRetryRiseTest) {
		return true
	}
	return riseHolds(base, since, q, alpha)
}

// splitSum sums f over the minutes of the onset's baseline and from the onset on.
func splitSum(ms []Minute, on Onset, f func(Minute) float64) (base, since float64) {
	for _, m := range ms {
		switch {
		case m.At.Before(on.BaselineFrom):
		case m.At.Before(*on.At):
			base += f(m)
		default:
			since += f(m)
		}
	}
	return base, since
}
