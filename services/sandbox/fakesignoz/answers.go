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
}

// serve writes the answer to req, asked with body: the one kept, or
// compute's, which it keeps.
func (a *answers) serve(w http.ResponseWriter, body []byte, req *queryRangeRequest, compute func() (*queryRangeResponse, *apiError)) int {
	key := strconv.FormatUint(req.Start, 10) + " " + strconv.FormatUint(req.End, 10) + " " + string(body)
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
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(kept)
	return http.StatusOK
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
