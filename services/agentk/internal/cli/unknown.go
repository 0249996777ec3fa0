package cli

import "errors"

// errNoSuchIncident is returned by commands given an incident id of which the
// pipeline stored nothing.
var errNoSuchIncident = errors.New("no such incident")
