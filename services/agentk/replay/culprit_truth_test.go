package replay

import (
	"os"
	"path/filepath"
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestExpectCulpritIsReadTolerantly: expect.culprit.service is read from
// incident.yaml whatever the loader carries; an incident naming none, or a
// folder without the file, names none.
func TestExpectCulpritIsReadTolerantly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, yaml, want string
	}{
		{"a callee's release", "id: x\nexpect:\n  root_cause: bad_release\n  verdict: allow\n  culprit:\n    service: ledger\n    verdict: allow\n", "ledger"},
		{"no culprit", "id: x\nexpect:\n  root_cause: bad_release\n  verdict: allow\n", ""},
		{"no file", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tt.yaml != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, incident.FileIncident), []byte(tt.yaml), 0o600))
			}
			require.Equal(t, tt.want, expectCulprit(&incident.Incident{Dir: dir}))
		})
	}
}
