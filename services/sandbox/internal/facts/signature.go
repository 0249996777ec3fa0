package facts

import (
	"fmt"
	"math"
	"time"

	"agentk/platform/mutant"
)

// A release that fails with a status message nobody saw before is told apart
// from the service's background errors by that message. At a few sampled
// requests a minute, one background error ("internal error", on the old
// version, at the rate the baseline always showed) a few minutes before the
// deploy can be where the whole error series splits best, and the onset
// lands before the deploy that caused the regression (s77-w024). SignatureOnset
// moves such an onset later, to where the errors the history never showed
// begin, and only past errors the data tells apart from the regression.

// SignatureOnset returns on, or an onset later than it: FindOnset's onset
// of the errors whose pair of service.version and status signature
// (Signature) no error span of the service showed before on. It moves on
// only when all of these hold, and otherwise returns on as it is:
//
//   - on is an error-rate onset (a latency regression is not about
//     signatures);
//   - the new pairs' onset is later than on, and from it on they hold
//     PooledMinErrors errors of status signatures never seen before on in
//     any version (a new version failing with an old message is no new
//     signature);
//   - the rest of the series (the errors of every signature seen before on,
//     in any version, and the p95), judged by FindOnset with the same
//     margins, has a baseline long enough to say so and no onset before the
//     new pairs' (restDepartsBefore: a retry storm's latency that follows
//     its new errors is part of the same regression, not one under way
//     before it);
//   - the rest's errors between the two onsets, less the first (the one
//     on was placed at), are no more than the rest's rate before on gives
//     for the requests there (backgroundBetween): the known pairs stayed
//     at their usual rate.
//
// A release that regresses with an old signature, or a regression of an old
// signature under way before a later deploy whose failures read as new (the
// message changed, the cause did not), keeps the earlier onset: moving an
// onset later makes "deployed before the onset" easier to pass, so it moves
// only past at most the background the baseline predicts. minutes is the
// service's series (every error span); errs are its entry spans' errors by
// version and signature, a subset of them in the same minutes.
func SignatureOnset(on Onset, minutes []Minute, errs []VersionErrors, alertAt time.Time, m Margins) Onset {
	if on.At == nil || on.Signal != "error_rate" {
		return on
	}
	split := splitSignatures(minutes, errs, *on.At)
	q := FindOnset(split.fresh, alertAt, m)
	if q.At == nil || !q.At.After(*on.At) || q.Signal != "error_rate" {
		return on
	}
	novel, sigs := split.novelSince(*q.At)
	if novel < PooledMinErrors {
		return on
	}
	if restDepartsBefore(split.rest, *q.At, alertAt, m) {
		return on
	}
	k, lambda := backgroundBetween(split.rest, *on.At, *q.At)
	if k-1 > lambda && !mutant.Off(mutant.SandboxSignatureRest) {
		return on
	}
	// The p95 did not move the onset: its baseline and threshold stay those
	// of the whole series.
	q.BaselineP95Ms, q.P95ThresholdMs = on.BaselineP95Ms, on.P95ThresholdMs
	q.Signatures = fmt.Sprintf("moved from %s: %s errors of %d status signatures the history never showed from %s on; the errors of known signatures and the p95 show no departure, and between the two %s errors of known signatures against %s expected from their rate before (background)",
		on.At.Format(time.RFC3339), fmtF(novel), sigs, q.At.Format(time.RFC3339), fmtF(k), fmtF(round(lambda)))
	return q
}

// signatureSplit is a service's series split by what the history before
// the onset showed: fresh holds the errors of pairs of version and
// signature it never showed (an old message on a new version among them),
// rest every error but those of signatures it never showed in any version,
// and the p95 (the same requests in each). An old message that rises on the
// new version is in both: it moves the new pairs' onset earlier, and it is
// a departure of the rest.
type signatureSplit struct {
	fresh, rest []Minute
	// novel counts, per minute, the errors of signatures not seen before
	// the onset in any version; novelSigs names them.
	novel     map[int64]float64
	novelSigs map[int64][]string
}

func splitSignatures(minutes []Minute, errs []VersionErrors, at time.Time) signatureSplit {
	pairs, sigs := map[string]bool{}, map[string]bool{}
	for _, e := range errs {
		if time.UnixMilli(e.TS).Before(at) && e.N > 0 {
			pairs[e.Version+"\x00"+e.Signature] = true
			sigs[e.Signature] = true
		}
	}
	s := signatureSplit{novel: map[int64]float64{}, novelSigs: map[int64][]string{}}
	fresh := map[int64]float64{}
	for _, e := range errs {
		if e.N <= 0 || pairs[e.Version+"\x00"+e.Signature] {
			continue
		}
		fresh[e.TS] += e.N
		if !sigs[e.Signature] {
			s.novel[e.TS] += e.N
			s.novelSigs[e.TS] = append(s.novelSigs[e.TS], e.Signature)
		}
	}
	for _, x := range minutes {
		n := math.Min(fresh[x.At.UnixMilli()], x.Errors)
		s.fresh = append(s.fresh, Minute{At: x.At, Requests: x.Requests, Errors: n, P95Ms: math.NaN()})
		n = math.Min(s.novel[x.At.UnixMilli()], x.Errors)
		s.rest = append(s.rest, Minute{At: x.At, Requests: x.Requests, Errors: x.Errors - n, P95Ms: x.P95Ms})
	}
	return s
}

// novelSince counts the errors of never-seen signatures from t on, and how
// many signatures they are.
func (s signatureSplit) novelSince(t time.Time) (float64, int) {
	var n float64
	names := map[string]bool{}
	for ts, c := range s.novel {
		if !time.UnixMilli(ts).Before(t) {
			n += c
			for _, sig := range s.novelSigs[ts] {
				names[sig] = true
			}
		}
	}
	return n, len(names)
}

// backgroundBetween is the count of rest's errors in [from, to) and the
// count its rate before from gives for the requests there: that rate pooled
// over every minute before from (a history without errors is taken as half
// an error, not a rate of zero).
func backgroundBetween(rest []Minute, from, to time.Time) (k, lambda float64) {
	var baseReq, baseErr, n float64
	for _, x := range rest {
		switch {
		case x.At.Before(from):
			baseReq += x.Requests
			baseErr += x.Errors
		case x.At.Before(to):
			n += x.Requests
			k += x.Errors
		}
	}
	if baseReq == 0 {
		return k, 0
	}
	return k, n * math.Max(baseErr, 0.5) / baseReq
}

// restDepartsBefore reports whether the rest of a series departs from its
// baseline before t, or its baseline is too short to say: FindOnset's onset
// of rest, when it has one, is before t. A departure of the rest from t on
// (the regression's own latency) does not keep an earlier onset.
func restDepartsBefore(rest []Minute, t, alertAt time.Time, m Margins) bool {
	r := FindOnset(rest, alertAt, m)
	if r.Short {
		return true
	}
	if mutant.Off(mutant.SandboxSignatureRestOnset) {
		return false
	}
	return r.At != nil && r.At.Before(t)
}
