//go:build agentk_crashpoints

package crashpoint

import (
	"fmt"
	"os"
)

// Hit, when AGENTK_CRASHPOINT names point, writes the marker file
// AGENTK_CRASHPOINT_MARKER ("<point> <pid>") and blocks forever, so that the
// test that waits for the marker kills the process exactly here.
func Hit(point string) {
	if os.Getenv(EnvPoint) != point {
		return
	}
	if path := os.Getenv(EnvMarker); path != "" {
		f, err := os.Create(path)
		if err == nil {
			_, _ = fmt.Fprintf(f, "%s %d\n", point, os.Getpid())
			_ = f.Sync()
			_ = f.Close()
		}
	}
	select {}
}
