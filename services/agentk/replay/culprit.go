package replay

import (
	"fmt"
	"io"
)

// Scoring of the decision about the culprit (INCIDENT-FORMAT.md, DESIGN.md
// rule 17): when the release that caused an incident is another service's
// than the alerted one, expect.culprit says what a correct pipeline decides
// about rolling THAT service back, and Result.Culprit is the decision the
// pipeline made about another service, if it made one.

// CulpritBadRollback reports a culprit decision that allowed a rollback a
// correct pipeline would not have: expect.culprit says deny, names another
// service, or is absent (nothing in the incident says any service but the
// alerted one may be rolled back). Like BadRollback, it must never happen.
func (r Result) CulpritBadRollback() bool {
	c := r.Culprit
	if c == nil || c.Verdict != "allow" {
		return false
	}
	e := r.Expect.Culprit
	return e == nil || e.Verdict != "allow" || e.Service != c.Service
}

// CulpritMissed reports an expect.culprit of allow that the pipeline did not
// meet: no decision about that service, or one that denied. The safe failure.
func (r Result) CulpritMissed() bool {
	e := r.Expect.Culprit
	if e == nil || e.Verdict != "allow" {
		return false
	}
	c := r.Culprit
	return c == nil || c.Service != e.Service || c.Verdict != "allow"
}

// CulpritMet reports whether the pipeline decided about the culprit as
// expect.culprit says: with allow, a culprit decision allowing the rollback
// of that service; with deny, no culprit decision allowing any rollback.
// False when the incident has no expect.culprit.
func (r Result) CulpritMet() bool {
	e := r.Expect.Culprit
	if e == nil {
		return false
	}
	if e.Verdict == "allow" {
		return !r.CulpritMissed()
	}
	return r.Culprit == nil || r.Culprit.Verdict != "allow"
}

// scoreCulprit adds o's culprit decision to the row: a culprit bad rollback
// counts as a bad rollback, a culprit missed as a missed rollback.
func (row *Row) scoreCulprit(o Outcome) {
	if o.Expect.Culprit != nil {
		row.CulpritExpected++
		if o.Error == "" && o.CulpritMet() {
			row.CulpritMet++
		}
	}
	if o.Error != "" {
		return
	}
	if o.CulpritBadRollback() {
		row.CulpritBadRollbacks++
	}
	if o.CulpritMissed() {
		row.CulpritMissedRollbacks++
	}
}

// markdownCulprit renders the culprit rows (met/expected per investigator)
// when some incident carries expect.culprit.
func markdownCulprit(w io.Writer, s Summary) {
	shown := false
	for _, r := range s.Rows {
		shown = shown || r.CulpritExpected > 0 || r.CulpritBadRollbacks > 0
	}
	if !shown {
		return
	}
	fmt.Fprintln(w, "## The culprit (DESIGN.md rule 17)\n\nThe decision about the service whose release caused the incident when it is not the alerted one (`expect.culprit`). Its bad and missed rollbacks are counted in the scoreboard above too.\n\n| investigator | culprit met | culprit bad rollbacks | culprit missed rollbacks |\n|---|---|---|---|")
	for _, r := range s.Rows {
		fmt.Fprintf(w, "| %s | %d/%d | %d | %d |\n", r.Investigator, r.CulpritMet, r.CulpritExpected, r.CulpritBadRollbacks, r.CulpritMissedRollbacks)
	}
	fmt.Fprintln(w)
}
