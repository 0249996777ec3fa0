package fakesignoz

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// The fake's metrics are the ones SigNoz's span metrics processor
// (signozspanmetrics in SigNoz's collector) derives from every span:
//
//   - signoz_calls_total, a monotonic cumulative sum: one call per span;
//   - signoz_latency, a cumulative histogram of span durations in
//     milliseconds over the processor's default buckets;
//
// both with the processor's dimensions: service.name, operation (the span
// name), span.kind (SPAN_KIND_SERVER, ...), status.code (STATUS_CODE_UNSET,
// STATUS_CODE_OK, STATUS_CODE_ERROR) and the configured resource dimensions
// service.namespace and deployment.environment (value "default" when the
// span has none). signoz_latency.count and signoz_latency.sum are the
// histogram's count and sum series, as SigNoz stores them.
//
// Queries follow SigNoz's v5 metrics semantics: the time aggregation runs
// per series (one label set) and step, then the space aggregation merges the
// series of a group. Latency quantiles are computed from the bucket counts
// by linear interpolation within the bucket, as histogramQuantile does, not
// from the exact durations.

const signalMetrics = "metrics"

type spanMetric struct {
	name, typ, unit, temporality, description string
	monotonic                                 bool
}

var spanMetrics = []spanMetric{
	{"signoz_calls_total", "sum", "", "cumulative", "Count of calls (spans), from SigNoz's span metrics processor", true},
	{"signoz_latency", "histogram", "ms", "cumulative", "Span duration in milliseconds, from SigNoz's span metrics processor", false},
	{"signoz_latency.count", "sum", "", "cumulative", "Count of signoz_latency observations", true},
	{"signoz_latency.sum", "sum", "ms", "cumulative", "Sum of signoz_latency observations in milliseconds", true},
}

// spanMetricLabels are the dimensions every span metric carries.
var spanMetricLabels = []string{"service.name", "operation", "span.kind", "status.code", "service.namespace", "deployment.environment"}

// latencyBucketsMs are the span metrics processor's default histogram bounds.
var latencyBucketsMs = []float64{0.1, 1, 2, 6, 10, 50, 100, 250, 500, 1000, 1400, 2000, 5000, 10000, 20000, 40000, 60000}

var otlpKinds = []string{"SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER", "SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER"}
var otlpStatus = []string{"STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"}

// metricPoint is one span as the span metrics processor counts it.
type metricPoint struct {
	ts         time.Time
	labels     map[string]any
	durationMs float64
}

func metricPointOf(r *record) metricPoint {
	at := func(list []string, v any) string {
		i, _ := v.(float64)
		if i >= 0 && int(i) < len(list) {
			return list[int(i)]
		}
		return list[0]
	}
	def := func(k string) string {
		if v := r.resource[k]; v != "" {
			return v
		}
		return "default"
	}
	d, _ := r.cols["duration_nano"].(float64)
	name, _ := r.cols["name"].(string)
	return metricPoint{
		ts: r.ts,
		labels: map[string]any{
			"service.name":           r.resource["service.name"],
			"operation":              name,
			"span.kind":              at(otlpKinds, r.cols["kind"]),
			"status.code":            at(otlpStatus, r.cols["status_code"]),
			"service.namespace":      def("service.namespace"),
			"deployment.environment": def("deployment.environment"),
		},
		durationMs: d / 1e6,
	}
}

func (st *store) metricPoints() []metricPoint {
	out := make([]metricPoint, 0, len(st.spans))
	for i := range st.spans {
		out = append(out, metricPointOf(&st.spans[i]))
	}
	return out
}

// metricRecords are the points as records a filter and a group-by can read:
// the resource dimensions in resource, the others as attributes.
func metricRecords(spans []record) []record {
	out := make([]record, 0, len(spans))
	for i := range spans {
		p := metricPointOf(&spans[i])
		res := map[string]string{}
		attrs := map[string]any{}
		for k, v := range p.labels {
			switch k {
			case "service.name", "service.namespace", "deployment.environment":
				res[k] = v.(string)
			default:
				attrs[k] = v
			}
		}
		out = append(out, record{ts: p.ts, cols: map[string]any{metricDurationCol: p.durationMs}, resource: res, attrs: attrs, size: 64})
	}
	return out
}

// metricDurationCol holds a point's duration; it is not a queryable column.
const metricDurationCol = "\x00duration_ms"

func findSpanMetric(name string) (spanMetric, bool) {
	i := slices.IndexFunc(spanMetrics, func(m spanMetric) bool { return m.name == name })
	if i < 0 {
		return spanMetric{}, false
	}
	return spanMetrics[i], true
}

// parseMetricAggregation validates one metrics aggregation.
func parseMetricAggregation(a aggregationSpec, requestType string) (aggregation, *apiError) {
	if a.Expression != "" {
		return aggregation{}, invalidInput("metrics aggregations take metricName, timeAggregation and spaceAggregation, not an expression (%q)", a.Expression)
	}
	if a.MetricName == "" {
		return aggregation{}, invalidInput("metricName is required for metrics aggregations")
	}
	m, ok := findSpanMetric(a.MetricName)
	if !ok {
		return aggregation{}, unsupported("metric %q is not served; fakesignoz derives only the span metrics signoz_calls_total, signoz_latency, signoz_latency.count and signoz_latency.sum from the incident's spans", a.MetricName)
	}
	if a.Temporality != "" && a.Temporality != "cumulative" && a.Temporality != "unspecified" && a.Temporality != "delta" {
		return aggregation{}, invalidInput("invalid temporality %q", a.Temporality)
	}
	if a.ComparisonSpaceAggregationParam != nil {
		return aggregation{}, unsupported("comparisonSpaceAggregationParam is not implemented")
	}
	agg := aggregation{expr: a.MetricName, alias: a.Alias, fn: "metric", metric: m.name}
	var err *apiError
	if m.typ == "histogram" {
		err = histogramAggregation(a, m, &agg)
	} else {
		err = counterAggregation(a, m, &agg)
	}
	if err != nil {
		return aggregation{}, err
	}
	if requestType == requestScalar {
		natural := map[string]string{"rate": "avg", "increase": "sum", "sum": "sum"}[agg.timeAgg]
		if agg.space == "quantile" {
			natural = "avg"
		}
		if r := strings.ToLower(a.ReduceTo); r != "" && r != natural {
			return aggregation{}, unsupported("reduceTo %q with timeAggregation %q is not implemented; fakesignoz reduces over the whole window (reduceTo %q)", a.ReduceTo, agg.timeAgg, natural)
		}
	}
	return agg, nil
}

// histogramAggregation sets a histogram's percentile and time aggregation.
func histogramAggregation(a aggregationSpec, m spanMetric, agg *aggregation) *apiError {
	space, timeAgg := strings.ToLower(a.SpaceAggregation), strings.ToLower(a.TimeAggregation)
	q, ok := quantileFns[space]
	if !ok {
		return invalidInput("histogram metric %q needs a percentile spaceAggregation (p50, p75, p90, p95, p99), got %q", m.name, a.SpaceAggregation)
	}
	if timeAgg != "" && timeAgg != "rate" && timeAgg != "increase" {
		return invalidInput("invalid timeAggregation %q for histogram metric %q", a.TimeAggregation, m.name)
	}
	agg.space, agg.quantile, agg.timeAgg = "quantile", q, timeAgg
	return nil
}

// counterAggregation sets a counter's space and time aggregation (sum and
// rate unless named).
func counterAggregation(a aggregationSpec, m spanMetric, agg *aggregation) *apiError {
	space, timeAgg := strings.ToLower(a.SpaceAggregation), strings.ToLower(a.TimeAggregation)
	switch timeAgg {
	case "", "rate", "increase", "sum":
	default:
		return unsupported("timeAggregation %q on the counter %q is not implemented; use rate or increase", a.TimeAggregation, m.name)
	}
	if timeAgg == "" {
		timeAgg = "rate"
	}
	switch space {
	case "sum", "avg", "min", "max", "count":
	case "":
		space = "sum"
	default:
		return invalidInput("invalid spaceAggregation %q for counter metric %q", a.SpaceAggregation, m.name)
	}
	agg.space, agg.timeAgg = space, timeAgg
	return nil
}

// computeMetric evaluates a metrics aggregation over the points of one group
// and one step (or the whole window for scalar); seconds is that interval.
func (a aggregation) computeMetric(recs []*record, seconds float64) float64 {
	if len(recs) == 0 {
		return math.NaN()
	}
	if a.space == "quantile" {
		counts := make([]float64, len(latencyBucketsMs)+1)
		for _, r := range recs {
			d, _ := r.cols[metricDurationCol].(float64)
			counts[sort.SearchFloat64s(latencyBucketsMs, d)]++
		}
		return histogramQuantile(a.quantile, latencyBucketsMs, counts)
	}
	perSeries := map[string]float64{}
	for _, r := range recs {
		key := seriesKey(r)
		v := 1.0
		if a.metric == "signoz_latency.sum" {
			v, _ = r.cols[metricDurationCol].(float64)
		}
		perSeries[key] += v
	}
	vals := make([]float64, 0, len(perSeries))
	for _, k := range slices.Sorted(maps.Keys(perSeries)) {
		v := perSeries[k]
		if a.timeAgg == "rate" {
			if seconds <= 0 {
				return math.NaN()
			}
			v /= seconds
		}
		vals = append(vals, v)
	}
	switch a.space {
	case "avg":
		s := 0.0
		for _, v := range vals {
			s += v
		}
		return s / float64(len(vals))
	case "min":
		return slices.Min(vals)
	case "max":
		return slices.Max(vals)
	case "count":
		return float64(len(vals))
	}
	s := 0.0
	for _, v := range vals {
		s += v
	}
	return s
}

func seriesKey(r *record) string {
	var b strings.Builder
	for _, l := range spanMetricLabels {
		v, ok := r.resource[l]
		if !ok {
			v = stringOf(r.attrs[l])
		}
		b.WriteString(v)
		b.WriteByte(0)
	}
	return b.String()
}

// histogramQuantile estimates the q-quantile from bucket counts (counts[i]
// is the number of observations in (bounds[i-1], bounds[i]]; the last is the
// +Inf bucket), interpolating linearly inside the bucket as Prometheus's
// histogram_quantile does. An observation in the +Inf bucket yields the
// highest finite bound.
func histogramQuantile(q float64, bounds, counts []float64) float64 {
	total := 0.0
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return math.NaN()
	}
	rank := q * total
	cum := 0.0
	for i, c := range counts {
		if cum+c >= rank && c > 0 {
			if i == len(bounds) {
				return bounds[len(bounds)-1]
			}
			lower := 0.0
			if i > 0 {
				lower = bounds[i-1]
			}
			return lower + (bounds[i]-lower)*(rank-cum)/c
		}
		cum += c
	}
	return bounds[len(bounds)-1]
}
