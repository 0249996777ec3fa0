package tools

import (
	"time"

	"agentk/services/sandbox/internal/facts"
)

// The facts moved to package facts; these aliases keep the names tools' own
// files call them by.

// Minute is one minute of a service's traffic (facts.Minute).
type Minute = facts.Minute

// Margins say how far a series must leave its baseline to count as the
// onset (facts.Margins).
type Margins = facts.Margins

// DefaultMargins are the README's margins (facts.DefaultMargins).
var DefaultMargins = facts.DefaultMargins

// Onset is the result of FindOnset (facts.Onset).
type Onset = facts.Onset

// FindOnset finds where the series left its baseline by the alert
// (facts.FindOnset).
func FindOnset(minutes []Minute, alertAt time.Time, m Margins) Onset {
	return facts.FindOnset(minutes, alertAt, m)
}

// binomTail is P(X ≥ k) for X ~ Binomial(n, q) (facts.BinomTail).
func binomTail(k, n int, q float64) float64 { return facts.BinomTail(k, n, q) }

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
