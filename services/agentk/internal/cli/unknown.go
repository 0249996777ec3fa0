package cli

import "errors"

// errNoSuchIncident is returned by commands given an incident id of which the
// pipeline stored nothing.
var errNoSuchIncident = errors.New("no such incident")

// unknown reports whether the audit found no message of the incident at all:
// every link missing is an id nobody filed, not a broken chain.
func (r auditReport) unknown() bool {
	for _, l := range r.Links {
		if l.What != "missing" {
			return false
		}
	}
	return true
}
