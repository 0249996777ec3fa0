package fakesignoz

import (
	"encoding/json"
	"testing"
	"time"

	"agentk/contracts/incident"
	"github.com/stretchr/testify/require"
)

func TestFilterMatches(t *testing.T) {
	t.Parallel()
	span := spanRecord(incident.Span{
		Timestamp: time.Unix(1763400000, 0), TraceID: "abc", SpanID: "s1", Name: "POST /ledger/entries", Kind: 2,
		DurationNano: 1_500_000_000, HasError: true, StatusCode: 2,
		Resource:   map[string]string{"service.name": "ledger-svc", "service.version": "v9"},
		Attributes: map[string]json.RawMessage{"http.response.status_code": rawJSON(500), "http.request.method": rawJSON("POST"), "retry": rawJSON(true)},
	})
	tests := []struct {
		name, expr string
		want       bool
	}{
		{"empty matches", "", true},
		{"string equality", "service.name = 'ledger-svc'", true},
		{"double-equals and double quotes", `service.name == "ledger-svc"`, true},
		{"string inequality", "service.name != 'ledger-svc'", false},
		{"sql inequality", "service.name <> 'other'", true},
		{"bool column", "has_error = true", true},
		{"bool column false", "has_error = false", false},
		{"bool column as string", "has_error = 'true'", true},
		{"numeric attribute", "http.response.status_code >= 500", true},
		{"numeric attribute as string", "http.response.status_code = '500'", true},
		{"numeric less", "http.response.status_code < 500", false},
		{"numeric column", "duration_nano > 1000000000", true},
		{"numeric column le", "duration_nano <= 1500000000", true},
		{"in list", "service.version IN ('v8', 'v9')", true},
		{"in brackets", "service.version IN ['v7']", false},
		{"not in", "service.version NOT IN ('v8')", true},
		{"exists attribute", "http.request.method EXISTS", true},
		{"not exists attribute", "db.system NOT EXISTS", true},
		{"exists on empty column is false", "parent_span_id EXISTS", false},
		{"contains is case-insensitive", "name CONTAINS 'ledger'", true},
		{"not contains", "name NOT CONTAINS 'LEDGER'", false},
		{"like", "name LIKE 'POST %'", true},
		{"like is case-sensitive", "name LIKE 'post %'", false},
		{"ilike", "name ILIKE 'post %'", true},
		{"like underscore", "name LIKE 'POS_ /%'", true},
		{"regexp", "name REGEXP '^POST /l.*'", true},
		{"between", "http.response.status_code BETWEEN 500 AND 599", true},
		{"not between", "http.response.status_code NOT BETWEEN 500 AND 599", false},
		{"and", "service.name = 'ledger-svc' AND has_error = true", true},
		{"implicit and", "service.name = 'ledger-svc' has_error = false", false},
		{"or", "service.name = 'x' OR has_error = true", true},
		{"not with parentheses", "NOT (service.name = 'x' OR has_error = false)", true},
		{"keywords are case-insensitive", "service.name = 'ledger-svc' and name contains 'post'", true},
		{"resource prefix", "resource.service.name = 'ledger-svc'", true},
		{"attribute prefix", "attribute.http.request.method = 'POST'", true},
		{"tag prefix is attribute", "tag.http.request.method = 'POST'", true},
		{"resource prefix does not see attributes", "resource.http.request.method = 'POST'", false},
		{"span prefix reads a column", "span.name = 'POST /ledger/entries'", true},
		{"deprecated names", "serviceName = 'ledger-svc' AND hasError = true AND durationNano > 0 AND httpMethod = 'POST' AND responseStatusCode = '500'", true},
		{"kind_string", "kind_string = 'Server' AND status_code_string = 'Error'", true},
		{"absent attribute equality", "missing.key = 'x'", false},
		{"absent attribute inequality", "missing.key != 'x'", true},
		{"absent attribute comparison", "missing.key > 1", false},
		{"bool attribute", "retry = true", true},
		{"escaped quote", `name = 'it\'s'`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, err := parseFilter(tt.expr)
			require.NoError(t, err)
			require.Equal(t, tt.want, matches(n, &span, signalTraces))
		})
	}
}

func TestFilterFullTextOnLogs(t *testing.T) {
	t.Parallel()
	log := logRecord(incident.Log{Timestamp: time.Unix(1763400000, 0), SeverityText: "ERROR", Body: "Pool checkout timed out"}, 0)
	for _, tt := range []struct {
		name, expr string
		want       bool
	}{
		{"quoted text", "'checkout timed'", true},
		{"bare word", "pool", true},
		{"absent word", "deadlock", false},
		{"with a comparison", "severity_text = 'ERROR' 'timed out'", true},
		{"severity number", "severity_number >= 17", true},
		{"body contains", "body CONTAINS 'checkout'", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, err := parseFilter(tt.expr)
			require.NoError(t, err)
			require.Equal(t, tt.want, matches(n, &log, signalLogs))
		})
	}
}

func TestFilterRejects(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, expr string }{
		{"unterminated quote", "name = 'x"},
		{"dangling operator", "name ="},
		{"dangling and", "name = 'x' AND"},
		{"unbalanced parenthesis", "(name = 'x'"},
		{"stray closing parenthesis", "name = 'x')"},
		{"bang alone", "name ! 'x'"},
		{"in without list", "name IN"},
		{"unterminated list", "name IN ('a', 'b'"},
		{"function has", "has(tags, 'x')"},
		{"function search", "search('x')"},
		{"between without and", "duration_nano BETWEEN 1 2"},
		{"between strings", "duration_nano BETWEEN 'a' AND 'b'"},
		{"bad regexp", "name REGEXP '('"},
		{"not before operator", "name NOT = 'x'"},
		{"operator first", "= 'x'"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseFilter(tt.expr)
			require.Error(t, err)
		})
	}
}
