package fakesignoz

import (
	"math"
	"strconv"
	"time"
)

// The response types follow SigNoz's querybuildertypesv5 (resp.go and
// query.go): field names and json tags are SigNoz's; the code is ours.

type queryRangeResponse struct {
	Type    string       `json:"type"`
	Data    queryData    `json:"data"`
	Meta    execStats    `json:"meta"`
	Warning *warningData `json:"warning,omitempty"`
}

type queryData struct {
	Results []any `json:"results"`
}

type execStats struct {
	RowsScanned   uint64            `json:"rowsScanned"`
	BytesScanned  uint64            `json:"bytesScanned"`
	DurationMS    uint64            `json:"durationMs"`
	StepIntervals map[string]uint64 `json:"stepIntervals,omitempty"`
}

type warningData struct {
	Message  string              `json:"message"`
	URL      string              `json:"url,omitempty"`
	Warnings []warningAdditional `json:"warnings,omitempty"`
}

type warningAdditional struct {
	Message string `json:"message"`
}

type unitMeta struct {
	Unit string `json:"unit,omitempty"`
}

type timeSeriesData struct {
	QueryName    string               `json:"queryName"`
	Aggregations []*aggregationBucket `json:"aggregations"`
}

type aggregationBucket struct {
	Index  int           `json:"index"`
	Alias  string        `json:"alias"`
	Meta   unitMeta      `json:"meta,omitempty"`
	Series []*timeSeries `json:"series"`
}

type timeSeries struct {
	Labels []*label           `json:"labels,omitempty"`
	Values []*timeSeriesValue `json:"values"`
}

type label struct {
	Key   fieldKey `json:"key"`
	Value any      `json:"value"`
}

type timeSeriesValue struct {
	Timestamp int64 `json:"timestamp"`
	Value     any   `json:"value"`
	Partial   bool  `json:"partial,omitempty"`
}

const (
	columnGroup       = "group"
	columnAggregation = "aggregation"
)

type columnDescriptor struct {
	fieldKey
	QueryName        string   `json:"queryName"`
	AggregationIndex int64    `json:"aggregationIndex"`
	Meta             unitMeta `json:"meta,omitempty"`
	Type             string   `json:"columnType"`
}

type scalarData struct {
	QueryName string              `json:"queryName"`
	Columns   []*columnDescriptor `json:"columns"`
	Data      [][]any             `json:"data"`
}

type rawData struct {
	QueryName  string    `json:"queryName"`
	NextCursor string    `json:"nextCursor"`
	Rows       []*rawRow `json:"rows"`
}

type rawRow struct {
	Timestamp *time.Time     `json:"timestamp,omitempty"`
	Data      map[string]any `json:"data"`
}

// sanitize renders a number the way SigNoz's response sanitiser does: NaN
// and infinities as strings, everything else rounded to three significant
// decimals.
func sanitize(v any) any {
	f, ok := v.(float64)
	if !ok {
		return v
	}
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return roundDecimals(f, 3)
}

// roundDecimals keeps n decimal places for |v| >= 1, and n significant
// digits after the leading zeros for |v| < 1.
func roundDecimals(v float64, n int) float64 {
	if v == 0 {
		return v
	}
	var scale float64
	if math.Abs(v) >= 1 {
		scale = math.Pow(10, float64(n))
	} else {
		scale = math.Pow(10, -math.Floor(math.Log10(math.Abs(v)))+float64(n)-1)
	}
	r := math.Round(v*scale) / scale
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return v
	}
	out, err := strconv.ParseFloat(strconv.FormatFloat(r, 'f', -1, 64), 64)
	if err != nil {
		return r
	}
	return out
}
