package policy

import (
	"slices"
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// AlertEnvironmentLabels are the alert labels that name the deployment
// environment the alert is about, in the order read: OpenTelemetry's
// resource keys (a SigNoz rule grouped by one carries it as a label), then
// the usual short names.
var AlertEnvironmentLabels = []string{"deployment.environment.name", "deployment.environment", "environment", "env"}

// environments is where the alerted service runs, from two sources no model
// wrote: the ingester-signed alert's label (Alert, "" when it names none) and
// the environments the service's latest spans name (Spans, from the
// sandbox's marker queries; contracts.Facts.ServiceEnvironments).
type environments struct {
	Alert string
	Spans []string
}

// serviceEnvironments reads both sources for svc and records them in inputs.
func serviceEnvironments(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) environments {
	var env environments
	if in.Alert != nil {
		for _, k := range AlertEnvironmentLabels {
			if v := strings.TrimSpace(in.Alert.Labels[k]); v != "" {
				env.Alert = v
				break
			}
		}
	}
	for _, e := range ev {
		if e.Service != svc || !e.Facts.MarkerQuery {
			continue
		}
		for _, s := range e.Facts.ServiceEnvironments {
			if s != "" && !slices.Contains(env.Spans, s) {
				env.Spans = append(env.Spans, s)
			}
		}
	}
	slices.Sort(env.Spans)
	if env.Alert != "" {
		inputs["alert_environment"] = env.Alert
	}
	if len(env.Spans) > 0 {
		inputs["service_environments"] = strings.Join(env.Spans, ",")
	}
	return env
}

// otherEnvironment says why the marker m is not a deployment of the
// alerted service's environment, or "" when nothing says so. A copy of the
// service in another environment (staging, perf, a canary region, a test
// suite's collector) shares its service.name and its markers; rolling the
// alerted one back for that deploy undoes nothing (another-environments-
// marker worlds, s70429-w055). A marker that names no environment, or a
// service whose alert and spans name none, cannot be told apart and is not
// rejected here; a marker that names one is rejected when it differs from
// the alert's, when the service's spans do not run in it, or when the
// spans run in several environments and the alert does not say which.
func otherEnvironment(m *contracts.DeploymentMarker, env environments) string {
	if m.Environment == "" || mutant.Off(mutant.GateMarkerEnvironment) {
		return ""
	}
	switch {
	case env.Alert != "" && m.Environment != env.Alert:
		return "its environment " + m.Environment + " is not the alert's (" + env.Alert + ")"
	case len(env.Spans) > 0 && !slices.Contains(env.Spans, m.Environment):
		return "its environment " + m.Environment + " is not the one the service's spans run in (" + strings.Join(env.Spans, ", ") + ")"
	case env.Alert == "" && len(env.Spans) > 1:
		return "the service's spans run in several environments (" + strings.Join(env.Spans, ", ") + ") and the alert names none: its environment " + m.Environment + " cannot be told to be the alerted one"
	}
	return ""
}
