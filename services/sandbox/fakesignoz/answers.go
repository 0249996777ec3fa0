package fakesignoz

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// The answers one Telemetry keeps are bounded: an eval's replays of one
// incident ask a few dozen distinct queries between them.
const (
	maxAnswers     = 256
	maxAnswerBytes = 32 << 20
)

// answers keeps the query_range answers of one Telemetry, as written, by
// request, so that a query asked again, by the same replay or by another
// replay of the same incident (the sandbox asks the same queries whatever
// the investigator), is answered without running it again. The key is the
// request's bytes and its window once measured (Server.window): execute is
// pure (the same request over the same store always yields the same
// response), and so are the warnings added to it, which follow from the
// window (a shifted window differs from the one in the bytes, and its
// warning names it; the empty-window hint reads only the store). Errors are
// not kept. Past maxAnswers or maxAnswerBytes the oldest go.
type answers struct {
	mu    sync.Mutex
	byKey map[string][]byte
	order []string
	bytes int
	// written holds, by request body, the window written in it, for every
	// body that decoded without error: asked again, its kept answer is
	// found without decoding it again (decoding every request was a third
	// of the fake's work once its answers were kept). Bounded like byKey.
	written map[string][2]uint64
}

// answerKey is the key of the answer to body over [start, end] (measured).
func answerKey(start, end uint64, body []byte) string {
	return strconv.FormatUint(start, 10) + " " + strconv.FormatUint(end, 10) + " " + string(body)
}

// remember notes the window written in body, which decoded without error.
func (a *answers) remember(body []byte, start, end uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.written == nil || len(a.written) >= 4*maxAnswers {
		a.written = map[string][2]uint64{}
	}
	a.written[string(body)] = [2]uint64{start, end}
}

// lookup returns the answer kept for body, when body decoded before and its
// window, measured by window, has an answer kept.
func (a *answers) lookup(body []byte, window func(start, end uint64) (uint64, uint64, string)) ([]byte, bool) {
	a.mu.Lock()
	w, ok := a.written[string(body)]
	a.mu.Unlock()
	if !ok {
		return nil, false
	}
	start, end, _ := window(w[0], w[1])
	a.mu.Lock()
	defer a.mu.Unlock()
	kept, ok := a.byKey[answerKey(start, end, body)]
	return kept, ok
}

// writeKept writes an answer kept.
func writeKept(w http.ResponseWriter, kept []byte) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(kept)
	return http.StatusOK
}

// serve writes the answer to req, asked with body: the one kept, or
// compute's, which it keeps.
func (a *answers) serve(w http.ResponseWriter, body []byte, req *queryRangeRequest, compute func() (*queryRangeResponse, *apiError)) int {
	key := answerKey(req.Start, req.End, body)
	a.mu.Lock()
	kept, ok := a.byKey[key]
	a.mu.Unlock()
	if !ok {
		resp, err := compute()
		if err != nil {
			return writeError(w, err)
		}
		b, merr := json.Marshal(successEnvelope{Status: "success", Data: resp})
		if merr != nil {
			http.Error(w, merr.Error(), http.StatusInternalServerError)
			return http.StatusInternalServerError
		}
		a.keep(key, b)
		kept = b
	}
	return writeKept(w, kept)
}

func (a *answers) keep(key string, b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byKey == nil {
		a.byKey = map[string][]byte{}
	}
	if _, ok := a.byKey[key]; ok || len(b) > maxAnswerBytes {
		return
	}
	for len(a.order) > 0 && (len(a.order) >= maxAnswers || a.bytes+len(b) > maxAnswerBytes) {
		a.bytes -= len(a.byKey[a.order[0]])
		delete(a.byKey, a.order[0])
		a.order = a.order[1:]
	}
	a.byKey[key] = b
	a.order = append(a.order, key)
	a.bytes += len(b)
}
