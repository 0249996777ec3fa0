package deployer

import (
	"context"
	"sync"

	"agentk/services/deployer/internal/policy"
)

var interrupts sync.Map // compose project → func(ctx, point, plan) error

func init() {
	f := func(ctx context.Context, point string, plan policy.Plan) error {
		if h, ok := interrupts.Load(plan.Project); ok {
			return h.(func(context.Context, string, policy.Plan) error)(ctx, point, plan)
		}
		return nil
	}
	testInterrupt.Store(&f)
}

// SetInterrupt makes f the rollback Interrupt seam (a crash simulated at a
// point of acting) of every Run acting on compose project project.
func SetInterrupt(project string, f func(ctx context.Context, point string, plan policy.Plan) error) {
	interrupts.Store(project, f)
}
