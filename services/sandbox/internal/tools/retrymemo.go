package tools

import "sync"

// retryMemoSize bounds the attribute names whose isRetryAttribute answer is
// kept: a service's spans carry a few dozen names, read on every span of
// every sample (the unanchored case-insensitive pattern was 7% of an eval's
// CPU). Past it, names are matched without being kept.
const retryMemoSize = 4096

// retryMemo keeps RetryAttributePattern's answer by attribute name.
var retryMemo struct {
	mu sync.RWMutex
	is map[string]bool
}

// matchesRetryPattern is RetryAttributePattern.MatchString(k), kept by name.
func matchesRetryPattern(k string) bool {
	retryMemo.mu.RLock()
	is, ok := retryMemo.is[k]
	retryMemo.mu.RUnlock()
	if ok {
		return is
	}
	is = RetryAttributePattern.MatchString(k)
	retryMemo.mu.Lock()
	defer retryMemo.mu.Unlock()
	if retryMemo.is == nil {
		retryMemo.is = map[string]bool{}
	}
	if len(retryMemo.is) < retryMemoSize {
		retryMemo.is[k] = is
	}
	return is
}
