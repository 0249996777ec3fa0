package tools

import (
	"bytes"
	"encoding/json"
	"sync"

	"agentk/services/sandbox/internal/signoz"
)

// sampleMemoSize bounds the span samples whose facts are kept: one
// service_overview asks sampleKeys and lagDestinations of its sample once
// per stage and again when it builds (a replay's CPU profile: the sample decoded and read three
// to five times a call, 16% of an eval's CPU), and a sandbox runs a few
// calls at once.
const sampleMemoSize = 8

// sampleMemo keeps readSample's answers by the response's results: the same
// bytes, compared in full (every investigator replaying an incident reads
// the same sample, in bytes of its own). An entry holds those bytes; a
// response's results are never written to once decoded. Safe for
// concurrent use.
var sampleMemo struct {
	mu      sync.Mutex
	entries []sampleMemoEntry // oldest first
}

type sampleMemoEntry struct {
	typ, refused string
	results      []json.RawMessage
	read         sampleFacts
}

// sampleFacts is what the planning reads of a span sample, from one
// decoding of it: the attributes followed as quality and those counting
// retries (sampleKeysOf), and the destinations of its consumer spans by
// service (sampleDestinations).
type sampleFacts struct {
	keys  []qualityKey
	retry []string
	dests map[string][]string
}

// readSample decodes the sample once and reads its facts; a sample that
// does not decode shows none.
func readSample(resp signoz.Response) sampleFacts {
	res, err := resp.Raw()
	if err != nil {
		res = nil
	}
	keys, retry := sampleKeysIn(res)
	return sampleFacts{keys: keys, retry: retry, dests: sampleDestinations(res)}
}

// sameResults reports whether a and b are the same results, byte for byte
// (the same slices are, without reading them).
func sameResults(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		if len(a[i]) > 0 && &a[i][0] != &b[i][0] && !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sampleKeys reads the attributes of the span sample: those followed as
// quality, and those counting retries (sampleKeysOf, kept by sampleMemo).
// Callers must not modify the slices returned.
func sampleKeys(resp signoz.Response) ([]qualityKey, []string) {
	f := sampleRead(resp)
	return f.keys, f.retry
}

// sampleRead is readSample's answer for resp, kept by sampleMemo.
// Callers must not modify what it holds.
func sampleRead(resp signoz.Response) sampleFacts {
	rs := resp.Data.Results
	if len(rs) == 0 || len(rs[0]) == 0 {
		return readSample(resp)
	}
	sampleMemo.mu.Lock()
	for _, e := range sampleMemo.entries {
		if e.typ == resp.Type && e.refused == resp.Refused && sameResults(e.results, rs) {
			sampleMemo.mu.Unlock()
			return e.read
		}
	}
	sampleMemo.mu.Unlock()
	f := readSample(resp)
	sampleMemo.mu.Lock()
	defer sampleMemo.mu.Unlock()
	if len(sampleMemo.entries) >= sampleMemoSize {
		sampleMemo.entries = append(sampleMemo.entries[:0], sampleMemo.entries[1:]...)
	}
	sampleMemo.entries = append(sampleMemo.entries, sampleMemoEntry{typ: resp.Type, refused: resp.Refused,
		results: rs, read: f})
	return f
}
