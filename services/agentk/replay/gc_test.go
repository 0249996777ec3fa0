package replay

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// An eval runs the collector at EvalGCPercent and puts the previous
// setting back; GOGC, when set, wins.
func TestTuneGCUnlessGOGCIsSet(t *testing.T) {
	t.Setenv("GOGC", "")
	require.NoError(t, os.Unsetenv("GOGC"))
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })

	restore := TuneGC()
	require.Equal(t, EvalGCPercent, debug.SetGCPercent(EvalGCPercent))
	restore()
	require.Equal(t, 100, debug.SetGCPercent(100))

	t.Setenv("GOGC", "150")
	restore = TuneGC()
	require.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: left as it is")
	restore()
}
