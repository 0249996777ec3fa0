package slackauth

import (
	"sync"
	"time"
)

// ReplayCache remembers the signed requests seen in the last MaxAge window.
// A request older than that is refused as stale by Verify, so the window is
// all a cache needs to cover. Safe for concurrent use.
type ReplayCache struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

// NewReplayCache returns an empty cache.
func NewReplayCache() *ReplayCache { return &ReplayCache{seen: map[string]time.Time{}} }

// Seen records id at now and reports whether it was already there.
func (c *ReplayCache) Seen(id string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, at := range c.seen {
		if now.Sub(at) > 2*MaxAge {
			delete(c.seen, k)
		}
	}
	if _, ok := c.seen[id]; ok {
		return true
	}
	c.seen[id] = now
	return false
}
