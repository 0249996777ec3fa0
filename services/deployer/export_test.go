package deployer

import (
	"context"
	"sync"

	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"
)

// Points of acting a test can stop a rollback at (SetInterrupt).
const (
	// InterruptActing: the journal says `acting` and the cooldown is taken;
	// compose has not run.
	InterruptActing = "acting"
	// InterruptApplied: the compose command has run (exit 0); nothing is
	// verified, recorded or published yet.
	InterruptApplied = "applied"
)

var interrupts sync.Map // compose project → func(ctx, point, plan) error

func init() {
	f := func(project string, rt rollback.Runtime) rollback.Runtime {
		return interruptible{Runtime: rt, project: project}
	}
	testRuntime.Store(&f)
}

// SetInterrupt makes f called at each point of acting of every docker Run on
// compose project project. A non-nil error from f is a crash there: the
// runtime reports it as the compose command's error without running
// (acting) or verifying (applied) anything more; the test kills the
// deployer's connection in f, so no journal, KV or bus write follows.
func SetInterrupt(project string, f func(ctx context.Context, point string, plan policy.Plan) error) {
	interrupts.Store(project, f)
}

// interruptible decorates the docker runtime with the SetInterrupt points.
type interruptible struct {
	rollback.Runtime
	project string
}

func (r interruptible) hit(ctx context.Context, point string, plan policy.Plan) error {
	h, ok := interrupts.Load(r.project)
	if !ok {
		return nil
	}
	return h.(func(context.Context, string, policy.Plan) error)(ctx, point, plan)
}

func (r interruptible) Apply(ctx context.Context, plan policy.Plan) (rollback.Applied, error) {
	if err := r.hit(ctx, InterruptActing, plan); err != nil {
		return rollback.Applied{ExitCode: -1}, err
	}
	applied, err := r.Runtime.Apply(ctx, plan)
	if err == nil && applied.ExitCode == 0 {
		if ierr := r.hit(ctx, InterruptApplied, plan); ierr != nil {
			return applied, ierr
		}
	}
	return applied, err
}
