package fakesignoz

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// These types mirror SigNoz's own (pkg/http/render, pkg/errors/http.go,
// pkg/types/querybuildertypes/querybuildertypesv5/resp.go and query.go,
// pkg/types/telemetrytypes/field.go at SigNoz 9997c3d): the field names and
// json tags are copied as data. Decoding the fake's output into them with
// unknown fields disallowed proves it carries no field SigNoz lacks, and the
// key checks prove every field SigNoz always writes is there.

type sigSuccess struct {
	Status string          `json:"status"`
	Data   json.RawMessage `json:"data,omitempty"`
}

type sigErrorResponse struct {
	Status string `json:"status"`
	Error  *struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
		Url     string `json:"url,omitempty"`
		Errors  []struct {
			Message     string   `json:"message"`
			Suggestions []string `json:"suggestions"`
		} `json:"errors"`
		Retry *struct {
			Delay time.Duration `json:"delay"`
		} `json:"retry,omitempty"`
		Suggestions []string `json:"suggestions"`
	} `json:"error"`
}

type sigQueryRangeResponse struct {
	Type string `json:"type"`
	Data struct {
		Results []json.RawMessage `json:"results"`
	} `json:"data"`
	Meta struct {
		RowsScanned   uint64            `json:"rowsScanned"`
		BytesScanned  uint64            `json:"bytesScanned"`
		DurationMS    uint64            `json:"durationMs"`
		StepIntervals map[string]uint64 `json:"stepIntervals,omitempty"`
	} `json:"meta"`
	Warning *struct {
		Message  string `json:"message"`
		Url      string `json:"url,omitempty"`
		Warnings []struct {
			Message string `json:"message"`
		} `json:"warnings,omitempty"`
	} `json:"warning,omitempty"`
}

type sigTelemetryFieldKey struct {
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	Unit          string `json:"unit,omitempty"`
	Signal        string `json:"signal"`
	FieldContext  string `json:"fieldContext"`
	FieldDataType string `json:"fieldDataType"`
}

type sigTimeSeriesData struct {
	QueryName    string `json:"queryName"`
	Aggregations []*struct {
		Index int    `json:"index"`
		Alias string `json:"alias"`
		Meta  struct {
			Unit string `json:"unit,omitempty"`
		} `json:"meta,omitempty"`
		Series []*struct {
			Labels []*struct {
				Key   sigTelemetryFieldKey `json:"key"`
				Value any                  `json:"value"`
			} `json:"labels,omitempty"`
			Values []*struct {
				Timestamp int64     `json:"timestamp"`
				Value     any       `json:"value"`
				Partial   bool      `json:"partial,omitempty"`
				Values    []float64 `json:"values,omitempty"`
				Bucket    *struct {
					Step float64 `json:"step"`
				} `json:"bucket,omitempty"`
			} `json:"values"`
		} `json:"series"`
		PredictedSeries  json.RawMessage `json:"predictedSeries,omitempty"`
		UpperBoundSeries json.RawMessage `json:"upperBoundSeries,omitempty"`
		LowerBoundSeries json.RawMessage `json:"lowerBoundSeries,omitempty"`
		AnomalyScores    json.RawMessage `json:"anomalyScores,omitempty"`
	} `json:"aggregations"`
}

type sigColumnDescriptor struct {
	sigTelemetryFieldKey
	QueryName        string `json:"queryName"`
	AggregationIndex int64  `json:"aggregationIndex"`
	Meta             struct {
		Unit string `json:"unit,omitempty"`
	} `json:"meta,omitempty"`
	Type string `json:"columnType"`
}

type sigScalarData struct {
	QueryName string                 `json:"queryName"`
	Columns   []*sigColumnDescriptor `json:"columns"`
	Data      [][]any                `json:"data"`
}

type sigRawData struct {
	QueryName  string `json:"queryName"`
	NextCursor string `json:"nextCursor"`
	Rows       []*struct {
		Timestamp time.Time      `json:"timestamp"`
		Data      map[string]any `json:"data"`
	} `json:"rows"`
}

// sigServiceItem is SigNoz's model.ServiceItem (pkg/query-service/model).
type sigServiceItem struct {
	ServiceName  string  `json:"serviceName"`
	Percentile99 float64 `json:"p99"`
	AvgDuration  float64 `json:"avgDuration"`
	NumCalls     uint64  `json:"numCalls"`
	CallRate     float64 `json:"callRate"`
	NumErrors    uint64  `json:"numErrors"`
	ErrorRate    float64 `json:"errorRate"`
	Num4XX       uint64  `json:"num4XX"`
	FourXXRate   float64 `json:"fourXXRate"`
	DataWarning  struct {
		TopLevelOps []string `json:"topLevelOps"`
	} `json:"dataWarning"`
}

func decodeStrict(t testing.TB, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "decoding %s", data)
}

// requireKeys asserts that a JSON object has every listed key (SigNoz writes
// these fields even when empty).
func requireKeys(t testing.TB, data []byte, keys ...string) {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &m))
	for _, k := range keys {
		require.Contains(t, m, k, "field %q missing in %s", k, data)
	}
}

// decodeQueryRangeResponse checks the envelope and the response, and returns
// the typed results.
func decodeQueryRangeResponse(t testing.TB, body []byte) (sigQueryRangeResponse, []json.RawMessage) {
	t.Helper()
	var env sigSuccess
	decodeStrict(t, body, &env)
	require.Equal(t, "success", env.Status)
	var resp sigQueryRangeResponse
	decodeStrict(t, env.Data, &resp)
	requireKeys(t, env.Data, "type", "data", "meta")
	var meta struct {
		Meta json.RawMessage `json:"meta"`
	}
	require.NoError(t, json.Unmarshal(env.Data, &meta))
	requireKeys(t, meta.Meta, "rowsScanned", "bytesScanned", "durationMs", "stepIntervals")
	for _, r := range resp.Data.Results {
		requireKeys(t, r, "queryName")
		switch resp.Type {
		case "raw":
			var rd sigRawData
			decodeStrict(t, r, &rd)
			requireKeys(t, r, "nextCursor", "rows")
		case "scalar":
			var sd sigScalarData
			decodeStrict(t, r, &sd)
			requireKeys(t, r, "columns", "data")
			for _, c := range sd.Columns {
				require.Contains(t, []string{"group", "aggregation"}, c.Type)
			}
			var cols struct {
				Columns []json.RawMessage `json:"columns"`
			}
			require.NoError(t, json.Unmarshal(r, &cols))
			for _, c := range cols.Columns {
				requireKeys(t, c, "name", "signal", "fieldContext", "fieldDataType", "queryName", "aggregationIndex", "columnType")
			}
		case "time_series":
			var ts sigTimeSeriesData
			decodeStrict(t, r, &ts)
			requireKeys(t, r, "aggregations")
			for _, a := range ts.Aggregations {
				require.NotNil(t, a.Series)
				for _, s := range a.Series {
					require.NotNil(t, s.Values)
				}
			}
		default:
			t.Fatalf("unexpected response type %q", resp.Type)
		}
	}
	return resp, resp.Data.Results
}

func decodeErrorResponse(t testing.TB, body []byte) sigErrorResponse {
	t.Helper()
	var e sigErrorResponse
	decodeStrict(t, body, &e)
	require.Equal(t, "error", e.Status)
	require.NotNil(t, e.Error)
	var outer struct {
		Error json.RawMessage `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &outer))
	requireKeys(t, outer.Error, "type", "code", "message", "errors", "suggestions")
	return e
}
