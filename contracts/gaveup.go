package contracts

import (
	"slices"
	"strings"
)

// gaveUpWords are what a status says when the caller gave up waiting.
var gaveUpWords = []string{"timeout", "timed out", "deadline"}

// SaysGaveUpWaiting reports whether a status text (an error type, a status
// message, an error signature) says the caller gave up waiting: it names a
// timeout or a deadline, in any case. The sandbox names a failing
// dependency timed out by it (Facts.TimedOutDependencies), and the gate
// reads a running version's new signature by it (deployment_related's
// change evidence): one vocabulary for both.
func SaysGaveUpWaiting(text string) bool {
	text = strings.ToLower(text)
	return slices.ContainsFunc(gaveUpWords, func(w string) bool { return strings.Contains(text, w) })
}
