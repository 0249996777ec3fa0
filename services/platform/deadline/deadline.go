// Package deadline bounds work whose length depends on the machine (a go
// build, a docker build, an image created) by the test's own deadline
// (go test -timeout) rather than by a fixed time: a fixed deadline on a
// build is a bet on the machine's load, and a loaded machine loses it
// (issue 36: the demo image's `go build` killed after a fixed 240 s). Such
// work reports how long it has been running instead (Report).
package deadline

import (
	"context"
	"flag"
	"time"
)

// Test is what a test's deadline is read from: *testing.T has it.
type Test interface {
	Deadline() (time.Time, bool)
}

// Context returns a context for machine-bound work under parent: it ends
// margin before t's deadline, what the test needs afterwards to fail
// cleanly and clean up, when t has a deadline, and otherwise only with
// parent.
func Context(parent context.Context, t Test, margin time.Duration) (context.Context, context.CancelFunc) {
	if d, ok := t.Deadline(); ok {
		return context.WithDeadline(parent, d.Add(-margin))
	}
	return context.WithCancel(parent)
}

// FromFlags is the deadline of a test binary where no *testing.T is at hand
// (TestMain, before m.Run): now plus -test.timeout, when the flag is set and
// not zero. It parses the command line when nobody has yet.
func FromFlags() Flags {
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.timeout")
	if f == nil {
		return Flags{}
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return Flags{}
	}
	d, _ := g.Get().(time.Duration)
	if d <= 0 {
		return Flags{}
	}
	return Flags{at: time.Now().Add(d)}
}

// Flags is a deadline read from the test binary's flags (FromFlags); it is
// a Test.
type Flags struct{ at time.Time }

// Deadline returns the deadline and whether there is one.
func (f Flags) Deadline() (time.Time, bool) { return f.at, !f.at.IsZero() }

// Report calls report with the time spent so far every interval until the
// returned stop is called: machine-bound work says that it is still
// running, and for how long, instead of being cut off.
func Report(interval time.Duration, report func(spent time.Duration)) (stop func()) {
	start := time.Now()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				report(time.Since(start).Round(time.Second))
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}
