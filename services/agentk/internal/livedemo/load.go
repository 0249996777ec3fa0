package livedemo

// load.go: the load generator.

import (
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"agentk/platform/wait"
)

// loadLoop sends GET /ask at a fixed rate on loopback until stopped; it
// can be paused. Bounded: it ends with the demo's context.
type loadLoop struct {
	paused   atomic.Bool
	sent, ok atomic.Int64
	cancel   context.CancelFunc
	done     chan struct{}
}

func startLoad(ctx context.Context, url string, rate int) *loadLoop {
	ctx, cancel := context.WithCancel(ctx)
	l := &loadLoop{cancel: cancel, done: make(chan struct{})}
	c := &http.Client{Timeout: 2 * time.Second}
	go func() {
		defer close(l.done)
		var wg sync.WaitGroup
		defer wg.Wait()
		wait.Every(ctx, time.Second/time.Duration(rate), func(ctx context.Context) {
			if l.paused.Load() {
				return
			}
			l.sent.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				l.ask(ctx, c, url)
			}()
		})
	}()
	return l
}

// ask sends one request and counts a 2xx answer.
func (l *loadLoop) ask(ctx context.Context, c *http.Client, url string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return
	}
	resp, err := c.Do(req)
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		l.ok.Add(1)
	}
}

func (l *loadLoop) pause(on bool) { l.paused.Store(on) }

func (l *loadLoop) stop() {
	l.cancel()
	<-l.done
}
