package mutant

// GateSlowDependency is the gate's check that no dependency the service
// calls at its usual rate slowed at the onset enough to explain most of the
// service's added latency (Facts.SlowDependencies).
const GateSlowDependency = "gate.slow_dependency"
