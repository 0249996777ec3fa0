// Package plan is the fixed minimum evidence plan every investigation runs
// before any model is consulted, and the assertion that keeps its order
// load-bearing: the deployment-marker query must fall inside the minimum
// iterations, or the gate could never corroborate a deployment-class claim.
package plan

import (
	"encoding/json"
	"errors"
	"fmt"

	"agentk/contracts"
)

// ErrMarkerOutsideMinimum is returned by Check when the deployment-marker query
// is missing from the plan or falls at or after the minimum iterations.
var ErrMarkerOutsideMinimum = errors.New("plan: deployment-marker query outside the minimum evidence iterations")

// Minimum is the tool run at each minimum iteration, in order. Each entry is
// one iteration with one tool call.
var Minimum = []string{
	contracts.ToolServiceOverview,
	contracts.ToolDeploymentMarkers,
	contracts.ToolErrorTraces,
	contracts.ToolErrorLogs,
}

// MinIterations is how many iterations the minimum plan takes. An investigation
// that stops before MinIterations iterations is incomplete.
var MinIterations = len(Minimum)

// Check reports whether the deployment-marker query is among the first
// minIterations steps of steps.
func Check(steps []string, minIterations int) error {
	for i, s := range steps {
		if s != contracts.ToolDeploymentMarkers {
			continue
		}
		if i >= minIterations {
			return fmt.Errorf("%w: at index %d, minimum iterations %d", ErrMarkerOutsideMinimum, i, minIterations)
		}
		return nil
	}
	return fmt.Errorf("%w: not in the plan %v", ErrMarkerOutsideMinimum, steps)
}

// mustCheck panics when Check fails: a misordered plan must not start.
func mustCheck(steps []string, minIterations int) {
	if err := Check(steps, minIterations); err != nil {
		panic(err)
	}
}

func init() { mustCheck(Minimum, MinIterations) }

// Step is one tool call of the minimum plan.
type Step struct {
	Tool      string
	Arguments json.RawMessage
}

// Steps returns the minimum plan for one service: every call over the incident
// window the sandbox derives from the alert.
func Steps(service string) []Step {
	out := make([]Step, 0, len(Minimum))
	for _, tool := range Minimum {
		args := contracts.ToolArgs{Service: service}
		switch tool {
		case contracts.ToolErrorTraces:
			args.Limit = 20
		case contracts.ToolErrorLogs:
			args.Limit = 30
			args.Severity = "WARN"
		}
		b, err := json.Marshal(args)
		if err != nil { // cannot happen: plain strings and ints
			panic(err)
		}
		out = append(out, Step{Tool: tool, Arguments: b})
	}
	return out
}

// OriginSteps are the calls the minimum plan adds when the alerted service's
// overview names another service as the origin of its failures
// (Facts.Origin, DESIGN rule 17): the origin's deployment markers and its own
// overview. The loop runs them in the deployment-marker iteration, so that
// the origin's marker query, like the alerted service's, falls inside the
// minimum iterations (DESIGN rule 2) and the gate can corroborate a
// deployment-class claim about the origin.
func OriginSteps(origin string) []Step {
	var out []Step
	for _, tool := range []string{contracts.ToolDeploymentMarkers, contracts.ToolServiceOverview} {
		b, err := json.Marshal(contracts.ToolArgs{Service: origin})
		if err != nil { // cannot happen: a plain string
			panic(err)
		}
		out = append(out, Step{Tool: tool, Arguments: b})
	}
	return out
}
