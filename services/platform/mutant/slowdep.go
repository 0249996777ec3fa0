package mutant

// GateSlowDependency is the gate's check that no dependency the service
// calls at its usual rate slowed at the onset enough to explain most of the
// service's added latency (Facts.SlowDependencies).
const GateSlowDependency = "gate.slow_dependency"

// SandboxSlowDependencyOnset is the overview's taking the onset of a slow
// dependency's calls (Facts.SlowDependencies) where they left their own
// baseline before every other signal of the service: without it a release
// deployed after a dependency slowed, and before the service's sampled
// errors showed, reads as deployed before the onset.
const SandboxSlowDependencyOnset = "sandbox.slow_dependency_onset"
