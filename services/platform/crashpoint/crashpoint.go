// Package crashpoint lets the crash suite (e2e/faults) kill a process at a
// named point inside a message handler, between receiving a message and
// acking it, and know that the kill landed there.
//
// Why a build tag and not a field or an option: a hook that a production type
// carries (a func field, an interface, an option) is a seam a production
// build can switch on by mistake or by configuration. Here, every build
// without `-tags agentk_crashpoints` compiles Hit to an empty function: no
// environment variable, flag or message can make a production binary stop at
// a crash point. Only the binary the crash suite builds for itself carries
// the tagged implementation (crashpoint_on.go), and even there it does
// nothing unless AGENTK_CRASHPOINT names the point.
package crashpoint

// Crash points.
const (
	// DeployerReceived: the deployer's handler has the approval message and
	// has done nothing with it.
	DeployerReceived = "deployer.received"
	// DeployerHandled: the deployer has acted and journalled the action, and
	// has neither published it nor acked the approval.
	DeployerHandled = "deployer.handled"
)

// Environment of a crash-point build (read only by crashpoint_on.go).
const (
	// EnvPoint names the one point to stop at.
	EnvPoint = "AGENTK_CRASHPOINT"
	// EnvMarker is the file written right before the process blocks.
	EnvMarker = "AGENTK_CRASHPOINT_MARKER"
)
