package e2e

import (
	"slices"
	"testing"
)

// TestHostilePersonasOnHeldout7 replays the hostile personas, and
// persona:quality, on e2e/incidents-heldout7 and asserts no bad rollback.
// On main before the gate read a refused credential after accepted calls
// (mutant gate.config_accepted_credential), persona:quality's
// config_regression was allowed on the expired-token trap: 8.4.2 had called
// its partner 10 times without a failure in the whole minute it served
// alone before the partner's token expired and every call answered 401.
func TestHostilePersonasOnHeldout7(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the hostile personas on incidents-heldout7; skipped with -short")
	}
	invs := hostilePersonas()
	if !slices.Contains(invs, "persona:quality") {
		invs = append(invs, "persona:quality")
	}
	holdTheLine(t, "heldout7-hostile", evalFolder(t, "incidents-heldout7", invs))
}
