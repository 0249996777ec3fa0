package facts

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Status rejections (issue 35): a gRPC server span is an error under the
// OpenTelemetry semantic conventions only for UNKNOWN, DEADLINE_EXCEEDED,
// UNIMPLEMENTED, INTERNAL, UNAVAILABLE and DATA_LOSS; every other non-OK
// code leaves its status unset (the caller's client span is the error). A
// configuration release that makes one RPC answer FAILED_PRECONDITION then
// never shows in has_error on the service's own spans, and no onset was
// found. A server span answering one of RejectCodes is counted as a
// failure of its operation (StatusOps): the service's own answer, read on
// its own spans.
//
// What is not counted, and why:
//
//   - CANCELLED: the caller walked away (its deadline, its user); the
//     server span records that, not a failure of the service.
//   - The callers' CLIENT spans. A client span's status is the caller's
//     view: DEADLINE_EXCEEDED or CANCELLED are written by the caller's own
//     deadline without the callee answering anything, UNAVAILABLE by the
//     caller's connection. A caller that shortened its timeout would make
//     the callee "fail" and its release look guilty. The callee's server
//     span says what the callee answered; a callee without server spans
//     (not instrumented) gets no such onset (fails closed).
//   - HTTP 4xx. The conventions leave a server span's status unset for a
//     4xx because the request is at fault; a 4xx share that jumps comes as
//     often from the callers (a client release sending bad requests, a
//     scanner, expired tokens, a partner's bulk job) as from the service,
//     and nothing on the server span tells which. A gRPC rejection is no
//     different in principle (INVALID_ARGUMENT is the caller's), which is
//     why the gate lets an onset placed only by rejections support a
//     release that changed what the service accepts (bad_release,
//     config_regression) and nothing else (contracts.Facts.OnsetStatus),
//     and why a release is still blamed only through the release ledger,
//     the marker before the onset and the release comparison (the
//     rejections of the running version, by code, that its history never
//     showed). HTTP is left for a corpus that shows a 4xx release without
//     a trap that mimics it.
//
// The count is of spans with has_error = false (an error span is counted
// by the error series already), kind SERVER, carrying one of RejectCodes in
// rpc.grpc.status_code (numeric, the conventions before 1.37) or
// rpc.response.status_code (the string name, the newer conventions).

// RejectCodes are the gRPC codes, by number, counted as a server span's
// rejection.
var RejectCodes = map[int]string{3: "INVALID_ARGUMENT", 5: "NOT_FOUND", 6: "ALREADY_EXISTS", 7: "PERMISSION_DENIED",
	8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION", 10: "ABORTED", 11: "OUT_OF_RANGE", 16: "UNAUTHENTICATED"}

// RejectCodeNames are RejectCodes' names, sorted.
func RejectCodeNames() []string {
	var out []string
	for _, n := range RejectCodes {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// RejectCodeNumbers are RejectCodes' numbers, sorted.
func RejectCodeNumbers() []int {
	var out []int
	for c := range RejectCodes {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// RejectName is the name of a rejection code as a status attribute holds
// it (a number, its decimal text, or the name), "" when it is no rejection.
func RejectName(v any) string {
	switch x := v.(type) {
	case float64:
		return RejectCodes[int(x)]
	case int:
		return RejectCodes[x]
	case int64:
		return RejectCodes[int(x)]
	case string:
		if n, err := strconv.ParseFloat(x, 64); err == nil {
			return RejectCodes[int(n)]
		}
		if slices.Contains(RejectCodeNames(), strings.ToUpper(x)) {
			return strings.ToUpper(x)
		}
	}
	return ""
}

// StatusRejected reports whether a raw span row is a server span that
// answered a rejection (has_error false; kind SERVER).
func StatusRejected(d map[string]any) bool {
	if failed(d) {
		return false
	}
	if k := AttrString(d, "kind_string"); k != "Server" && AttrString(d, "kind") != "2" {
		return false
	}
	return RejectName(AttrValue(d, "rpc.grpc.status_code")) != "" || RejectName(AttrValue(d, "rpc.response.status_code")) != ""
}

// StatusKeys are the attributes StatusOps' queries group by, one query
// each.
var StatusKeys = []string{"rpc.grpc.status_code", "rpc.response.status_code"}

// Rejections are what the status queries' answers say: each operation's
// ("name KIND") rejections a minute, and the rejections by version and
// code as release rows (signature "gRPC <CODE>").
type Rejections struct {
	ByOp map[string][]Minute
	Rows []VersionErrors
	// OpRows are the rows of each operation (VersionPlaced's).
	OpRows map[string][]VersionErrors
}

// ReadRejections reads the answers of the status queries, one per
// StatusKeys in order, grouped by name, kind_string, service.version and
// the key. A refused answer (SigNoz never saw the attribute) adds nothing.
func ReadRejections(resps []signoz.Response) (*Rejections, error) {
	r := &Rejections{ByOp: map[string][]Minute{}, OpRows: map[string][]VersionErrors{}}
	t := minuteTable{}
	for i, resp := range resps {
		if resp.Refused != "" || i >= len(StatusKeys) {
			continue
		}
		key := StatusKeys[i]
		label := func(s signoz.Series) string {
			op, ver, code := LabelJoin("name", "kind_string")(s), LabelOf("service.version")(s), RejectName(LabelOf(key)(s))
			if op == "" || code == "" {
				return ""
			}
			return op + "\x00" + ver + "\x00" + code
		}
		err := Samples(resp, label, func(g string, agg int, ts int64, n float64) {
			if agg != 0 || n <= 0 {
				return
			}
			p := splitLabel(g)
			t.get(p[0], ts).Errors += n
			if p[1] != "" {
				row := VersionErrors{Version: p[1], Signature: "gRPC " + p[2], TS: ts, N: n}
				r.Rows = append(r.Rows, row)
				r.OpRows[p[0]] = append(r.OpRows[p[0]], row)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	for op, m := range t {
		for _, x := range m {
			r.ByOp[op] = append(r.ByOp[op], *x)
		}
		slices.SortFunc(r.ByOp[op], func(a, b Minute) int { return a.At.Compare(b.At) })
	}
	return r, nil
}

// StatusOps returns ops with each operation's rejections added to its
// errors (a minute's rejections only where the operation's series has that
// minute: they are among its spans), and the operations that had any.
func StatusOps(ops map[string][]Minute, rj *Rejections) (map[string][]Minute, map[string]bool) {
	if rj == nil || len(rj.ByOp) == 0 || mutant.Off(mutant.SandboxStatusRejections) {
		return ops, nil
	}
	out, with := make(map[string][]Minute, len(ops)), map[string]bool{}
	for op, ms := range ops {
		add := rj.ByOp[op]
		if len(add) == 0 {
			out[op] = ms
			continue
		}
		by := map[int64]float64{}
		for _, x := range add {
			by[x.At.UnixMilli()] += x.Errors
		}
		cp := slices.Clone(ms)
		for i := range cp {
			if n := by[cp[i].At.UnixMilli()]; n > 0 {
				cp[i].Errors = min(cp[i].Requests, cp[i].Errors+n)
				with[op] = true
			}
		}
		out[op] = cp
	}
	return out, with
}

// WithRejectionRows adds the rejections to the versions' error rows of
// each operation (VersionPlaced reads them by version and signature).
func (v *OpVersions) WithRejectionRows(rj *Rejections) *OpVersions {
	if v == nil || rj == nil || len(rj.OpRows) == 0 || mutant.Off(mutant.SandboxStatusRejections) {
		return v
	}
	out := &OpVersions{firstServed: v.firstServed, errs: map[string][]VersionErrors{}}
	for op, es := range v.errs {
		out.errs[op] = slices.Clone(es)
	}
	for op, es := range rj.OpRows {
		out.errs[op] = append(out.errs[op], es...)
	}
	return out
}

// OperationDeparturesWithStatus is OperationDeparturesBy over ops with the
// rejections counted (StatusOps). A departure of an operation that had
// rejections, where the operation's own error series (without them)
// departs no earlier, is marked: its onset's Status names the codes, and
// only a release that changed what the service accepts may lean on it
// (the gate's statusOnsetReasons).
func OperationDeparturesWithStatus(ops map[string][]Minute, rj *Rejections, filters map[string]string, vs *OpVersions, alertAt time.Time, m Margins) []OpDeparture {
	with, rejected := StatusOps(ops, rj)
	if len(rejected) == 0 {
		return OperationDeparturesBy(ops, filters, vs, alertAt, m)
	}
	deps := OperationDeparturesBy(with, filters, vs.WithRejectionRows(rj), alertAt, m)
	plain := OperationDeparturesBy(ops, filters, vs, alertAt, m)
	for i, d := range deps {
		if !rejected[d.op] || d.on.Signal != "error_rate" {
			continue
		}
		j := slices.IndexFunc(plain, func(p OpDeparture) bool {
			return p.op == d.op && p.on.Signal == d.on.Signal && !p.on.At.After(*d.on.At)
		})
		if j < 0 {
			deps[i].on.Status = rejectionCodes(rj, d.op, *d.on.At, alertAt)
		}
	}
	return deps
}

// rejectionCodes names the codes of op's rejections from at to alertAt.
func rejectionCodes(rj *Rejections, op string, at, alertAt time.Time) string {
	var codes []string
	for _, e := range rj.OpRows[op] {
		c := strings.TrimPrefix(e.Signature, "gRPC ")
		if e.TS >= at.UnixMilli() && e.TS <= alertAt.UnixMilli() && !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	slices.Sort(codes)
	if len(codes) == 0 {
		return "gRPC rejections"
	}
	return "gRPC " + strings.Join(codes, ", ")
}

// ReleaseErrorsWith is ReleaseErrors with the server spans' rejections
// among the errors, each of signature "gRPC <CODE>": a release whose new
// configuration rejects what it used to accept shows in the release
// comparison as new errors of its running version (a rejection its
// history showed is no new one).
func ReleaseErrorsWith(versions, errs signoz.Response, rj *Rejections, onset time.Time) (*contracts.ReleaseErrors, error) {
	if rj == nil || len(rj.Rows) == 0 || mutant.Off(mutant.SandboxStatusRejections) {
		return ReleaseErrors(versions, errs, onset)
	}
	return releaseErrors(versions, errs, rj.Rows, onset)
}

// failed reports whether a span row has has_error set.
func failed(d map[string]any) bool {
	v, ok := AttrValue(d, "has_error").(bool)
	return ok && v
}
