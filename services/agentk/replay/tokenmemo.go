package replay

import "sync"

// tokenMemoSize bounds the evidence texts whose tokens are kept: every
// investigator replaying an incident cites the same overview, whose text
// the regular expressions of evidenceTokens read again for each (2.6% of
// an eval's CPU with three investigators). Past it the memo starts over.
const tokenMemoSize = 1024

// tokenMemo keeps evidenceTokens' answers by the evidence's text.
var tokenMemo struct {
	mu sync.Mutex
	by map[string][]token
}

// keptEvidenceTokens is evidenceTokens(compact), kept by tokenMemo.
// Callers must not modify the slice returned.
func keptEvidenceTokens(compact string) []token {
	tokenMemo.mu.Lock()
	t, ok := tokenMemo.by[compact]
	tokenMemo.mu.Unlock()
	if ok {
		return t
	}
	t = evidenceTokens(compact)
	tokenMemo.mu.Lock()
	defer tokenMemo.mu.Unlock()
	if tokenMemo.by == nil || len(tokenMemo.by) >= tokenMemoSize {
		tokenMemo.by = map[string][]token{}
	}
	tokenMemo.by[compact] = t
	return t
}
