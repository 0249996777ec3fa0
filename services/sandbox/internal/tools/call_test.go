package tools

import (
	"agentk/services/sandbox/internal/facts"

	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidateRefuses(t *testing.T) {
	t.Parallel()
	startsAt := time.Date(2026, 11, 4, 10, 10, 0, 0, time.UTC)
	now := startsAt.Add(10 * time.Minute)
	lim := DefaultLimits([]string{"agentk-sandbox"})
	tests := []struct {
		name, tool, args string
		want             error
		text             string
	}{
		{"unknown tool", "run_sql", `{}`, ErrUnknownTool, "the tools are service_overview"},
		{"missing service", "error_traces", `{}`, ErrBadArguments, "service"},
		{"unknown argument", "error_traces", `{"service":"a","query":"DROP"}`, ErrBadArguments, "query"},
		{"limit over schema max", "error_traces", `{"service":"a","limit":500}`, ErrBadArguments, "/limit"},
		{"bad time", "error_traces", `{"service":"a","from":"yesterday"}`, ErrBadArguments, "/from"},
		{"quote in service", "error_traces", `{"service":"a' OR service.name != '"}`, ErrBadArguments, "not a service.name"},
		{"excluded", "service_overview", `{"service":"AGENTK-sandbox"}`, ErrExcluded, "never investigated"},
		{"out of window", "error_traces", `{"service":"a","from":"2026-11-01T00:00:00Z","to":"2026-11-01T01:00:00Z"}`, ErrWindow, "does not overlap the incident window 2026-11-04T08:10:00Z..2026-11-04T10:40:00Z"},
		{"oversized", "error_traces", `{"service":"a","from":"2026-11-04T00:00:00Z","to":"2026-11-04T10:00:00Z"}`, ErrWindow, "longer than the maximum of 6h0m0s"},
		{"inverted", "error_traces", `{"service":"a","from":"2026-11-04T10:00:00Z","to":"2026-11-04T09:00:00Z"}`, ErrWindow, "is not after"},
		{"bad trace id", "get_trace", `{"trace_id":"xyz"}`, ErrBadArguments, "/trace_id"},
		{"filter with OR", "aggregate_traces", `{"service":"a","aggregation":"count","filter":"has_error = true OR name = 'x'"}`, ErrBadArguments, "AND"},
		{"filter on service", "aggregate_traces", `{"service":"a","aggregation":"count","filter":"service.name = 'agentk-sandbox'"}`, ErrBadArguments, "not allowed"},
		{"group by resource", "aggregate_traces", `{"service":"a","aggregation":"count","group_by":["service.name"]}`, ErrBadArguments, "group_by"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Validate(tt.tool, json.RawMessage(tt.args), startsAt, now, lim)
			require.ErrorIs(t, err, tt.want)
			require.Contains(t, err.Error(), tt.text)
		})
	}
}

func TestValidateWindows(t *testing.T) {
	t.Parallel()
	startsAt := time.Date(2026, 11, 4, 10, 10, 0, 0, time.UTC)
	lim := DefaultLimits(nil)
	tests := []struct {
		name     string
		now      time.Time
		args     string
		from, to time.Time
		limit    int
	}{
		{"default is the incident window", startsAt.Add(5 * time.Minute), `{"service":"a"}`, startsAt.Add(-2 * time.Hour), startsAt.Add(30 * time.Minute), 20},
		{"late investigation is cut to 6h", startsAt.Add(10 * time.Hour), `{"service":"a","limit":50}`, startsAt.Add(-2 * time.Hour), startsAt.Add(4 * time.Hour), 50},
		{"partial overlap allowed", startsAt, `{"service":"a","from":"2026-11-04T06:00:00Z","to":"2026-11-04T08:30:00Z"}`, time.Date(2026, 11, 4, 6, 0, 0, 0, time.UTC), time.Date(2026, 11, 4, 8, 30, 0, 0, time.UTC), 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Validate("error_traces", json.RawMessage(tt.args), startsAt, tt.now, lim)
			require.NoError(t, err)
			require.Equal(t, tt.from, c.Window.From)
			require.Equal(t, tt.to, c.Window.To)
			require.Equal(t, tt.limit, c.Limit)
		})
	}
}

func TestParseFilterRendersCanonically(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, out string }{
		{"simple", "has_error = true", "has_error = true"},
		{"quotes escaped", `http.route = 'a\'b' and duration_nano >= 1e6`, `http.route = 'a\'b' AND duration_nano >= 1e6`},
		{"in list", `http.response.status_code IN (500, 503)`, `http.response.status_code IN (500, 503)`},
		{"not contains", `status_message NOT CONTAINS "timeout"`, `status_message NOT CONTAINS 'timeout'`},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ParseFilter(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.out, Render(c))
		})
	}
}

func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"has_error = true", "name IN ('a','b') AND duration_nano > 5", `x = 'unterminated`, "(a = 1)", "app.x NOT CONTAINS 'y'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseFilter(s)
		if err != nil {
			return
		}
		// What we render must parse back to the same conditions.
		again, err := ParseFilter(Render(c))
		require.NoError(t, err)
		require.Equal(t, Render(c), Render(again))
	})
}

func TestFindOnset(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 4, 8, 0, 0, 0, time.UTC)
	series := func(n int, f func(i int) Minute) []Minute {
		var out []Minute
		for i := range n {
			m := f(i)
			m.At = t0.Add(time.Duration(i) * time.Minute)
			out = append(out, m)
		}
		return out
	}
	end := t0.Add(140 * time.Minute) // the alert fired
	tests := []struct {
		name    string
		minutes []Minute
		want    *time.Time
		signal  string
	}{
		{"errors jump at 95 and stay", series(150, func(i int) Minute {
			if i >= 95 {
				return Minute{Requests: 100, Errors: 30, P95Ms: 120}
			}
			return Minute{Requests: 100, Errors: 1, P95Ms: 120}
		}), ptr(t0.Add(95 * time.Minute)), "error_rate"},
		{"latency jump at 70", series(150, func(i int) Minute {
			if i >= 70 {
				return Minute{Requests: 100, P95Ms: 900}
			}
			return Minute{Requests: 100, P95Ms: 100 + float64(i%5)}
		}), ptr(t0.Add(70 * time.Minute)), "p95"},
		{"a two-minute blip is not an onset", series(150, func(i int) Minute {
			if i == 80 || i == 81 {
				return Minute{Requests: 100, Errors: 90, P95Ms: 100}
			}
			return Minute{Requests: 100, Errors: 1, P95Ms: 100}
		}), nil, ""},
		{"no baseline traffic", series(150, func(i int) Minute {
			if i < 60 {
				return Minute{P95Ms: math.NaN()}
			}
			return Minute{Requests: 10, Errors: 10, P95Ms: 100}
		}), nil, ""},
		{"quiet minutes do not break the run", series(150, func(i int) Minute {
			switch {
			case i == 101:
				return Minute{P95Ms: math.NaN()}
			case i >= 100:
				return Minute{Requests: 50, Errors: 25, P95Ms: 100}
			}
			return Minute{Requests: 50, P95Ms: 100}
		}), ptr(t0.Add(100 * time.Minute)), "error_rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := facts.FindOnset(tt.minutes, end, DefaultMargins)
			require.Equal(t, tt.want, o.At, o.Reason)
			require.Equal(t, tt.signal, o.Signal)
			require.NotEmpty(t, o.Reason)
		})
	}
}

func ptr(t time.Time) *time.Time { return &t }
