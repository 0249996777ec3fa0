package fakesignoz

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// SigNoz's render package wraps every v5 answer in one of two envelopes:
// {"status":"success","data":...} or {"status":"error","error":{...}}. The
// error body mirrors SigNoz's errors.JSON: type, code, message, optional url,
// and errors/suggestions that are always arrays, never null.

type successEnvelope struct {
	Status string `json:"status"`
	Data   any    `json:"data,omitempty"`
}

type errorEnvelope struct {
	Status string    `json:"status"`
	Error  errorBody `json:"error"`
}

type errorBody struct {
	Type        string            `json:"type"`
	Code        string            `json:"code"`
	Message     string            `json:"message"`
	URL         string            `json:"url,omitempty"`
	Errors      []errorAdditional `json:"errors"`
	Suggestions []string          `json:"suggestions"`
}

type errorAdditional struct {
	Message     string   `json:"message"`
	Suggestions []string `json:"suggestions"`
}

// apiError is an error the fake answers with SigNoz's error envelope. The
// status, type and code triples are the ones SigNoz's render.Error derives.
type apiError struct {
	status     int
	typ        string
	code       string
	message    string
	additional []string
}

func (e *apiError) Error() string { return e.message }

func invalidInput(format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "invalid-input", code: "invalid_input", message: fmt.Sprintf(format, args...)}
}

// unsupported marks a request SigNoz would accept but the fake does not
// implement. It is still a 400, so that a client drifting onto an
// unimplemented shape fails loudly in tests instead of receiving a guess.
func unsupported(format string, args ...any) *apiError {
	e := invalidInput("fakesignoz: "+format, args...)
	e.additional = []string{"fakesignoz implements a subset of the v5 query API; see services/sandbox/fakesignoz/README.md"}
	return e
}

func unauthenticated() *apiError {
	return &apiError{status: http.StatusUnauthorized, typ: "unauthenticated", code: "unauthenticated", message: "unauthenticated"}
}

func notFound(format string, args ...any) *apiError {
	return &apiError{status: http.StatusNotFound, typ: "not-found", code: "not_found", message: fmt.Sprintf(format, args...)}
}

func methodNotAllowed(method, path string) *apiError {
	return &apiError{status: http.StatusMethodNotAllowed, typ: "method-not-allowed", code: "method_not_allowed", message: fmt.Sprintf("method %s not allowed on %s", method, path)}
}

func writeSuccess(w http.ResponseWriter, data any) int {
	return writeJSON(w, http.StatusOK, successEnvelope{Status: "success", Data: data})
}

func writeError(w http.ResponseWriter, e *apiError) int {
	body := errorBody{
		Type:        e.typ,
		Code:        e.code,
		Message:     e.message,
		Errors:      []errorAdditional{},
		Suggestions: []string{},
	}
	for _, a := range e.additional {
		body.Errors = append(body.Errors, errorAdditional{Message: a, Suggestions: []string{}})
	}
	return writeJSON(w, e.status, errorEnvelope{Status: "error", Error: body})
}

func writeJSON(w http.ResponseWriter, status int, v any) int {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
	return status
}
