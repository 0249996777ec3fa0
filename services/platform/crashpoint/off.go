//go:build !agentk_crashpoints

package crashpoint

// Hit does nothing: this build has no crash points.
func Hit(string) {}
