package tools

import (
	"slices"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// RefineSpans bounds the spans read from the onset's bucket (oldest first);
// a regression that begins after them keeps the bucket's start. The
// refinement itself is facts.RefineOnset.
const RefineSpans = 1000

var refineFields = []signoz.FieldKey{span("timestamp", "number"), span("has_error", "bool"), span("duration_nano", "number"),
	span("name", "string"), span("kind_string", "string"), tag("http.route", "string"), tag("rpc.method", "string"),
	// A server's rejection is off in an onset it placed (facts.StatusRejected).
	tag("rpc.grpc.status_code", "number"), tag("rpc.response.status_code", "string"),
	// A request's spans count once (facts.PerTrace).
	span("trace_id", "string"),
	// A failure confined to a version that began serving in the window
	// (facts.RefineByVersion).
	resource(contracts.ServiceVersionKey, signoz.SignalTraces), resource(contracts.FaaSVersionKey, signoz.SignalTraces), resource(contracts.ImageTagKey, signoz.SignalTraces)}

// refineQuery asks for the affected service's spans from the onset over the
// departure's first Sustain buckets (those FindOnset saw off), oldest first;
// for an operation's onset, that operation's spans only.
func refineQuery(c Call, on Onset) Query {
	from := on.At.UnixMilli()
	to := on.At.Add(time.Duration(max(1, on.BucketMinutes)*DefaultMargins.Sustain) * time.Minute).UnixMilli()
	fields := refineFields
	switch {
	case on.Signal == "value_share" && on.QualityKey != "":
		fields = append(slices.Clone(refineFields), tag(on.QualityKey, "string"))
	case on.Signal == "retries" && on.QualityKey != "":
		fields = append(slices.Clone(refineFields), tag(on.QualityKey, "number"))
	}
	return Query{Name: "onset_spans", Request: signoz.NewRequest(signoz.RequestRaw, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
		Filter: signoz.Filter{Expression: and(serviceFilter(c.Service), notMarker, on.OpFilter)}, Limit: RefineSpans, SelectFields: fields,
		Order: []signoz.OrderBy{{Key: signoz.OrderKey{Name: "timestamp"}, Direction: "asc"}}})}

}

// refineOnset places on inside its bucket from the bucket's spans (rows):
// over the operations that departed there (facts.RefineByOps), then over
// the version its failure is confined to (facts.RefineByVersion;
// st.versions, the entry spans by service.version, say which versions
// served before; unread, no version is confined).
func refineOnset(on Onset, rows []signoz.RawRow, st overviewState) Onset {
	if st.versionKey != "" {
		rows = facts.KeyAsVersion(rows, st.versionKey)
	}
	marks := onsetMarks(on, rows)
	refined := facts.RefineByOps(on, marks, facts.DepartedAt(on, st.departures))
	return facts.RefineByVersion(on, refined, marks, facts.ServedBefore(st.versions, *on.At))
}
