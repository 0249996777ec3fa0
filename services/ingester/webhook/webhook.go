// Package webhook turns the body of an Alertmanager-format webhook (SigNoz's
// webhook channel, Prometheus Alertmanager, Grafana's Alertmanager-compatible
// contact points) into normalised contracts.AlertV1 values. It is pure: bytes
// and a receive time in, alerts or a field-naming error out. The ingester and
// the replay harness share it, so a recorded alert.json becomes exactly the
// AlertV1 a live delivery would.
package webhook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
)

// ErrInvalid is wrapped by every error Parse returns; errors.As with
// *FieldError gives the field.
var ErrInvalid = errors.New("webhook: invalid body")

// FieldError names the field of the body that is wrong: "alerts[2].startsAt".
// Field is empty when the body as a whole is unusable (not JSON).
type FieldError struct {
	Field string
	Msg   string
}

// Error renders the problem with its field.
func (e *FieldError) Error() string {
	if e.Field == "" {
		return "webhook: " + e.Msg
	}
	return fmt.Sprintf("webhook: field %q: %s", e.Field, e.Msg)
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// MaxAlerts bounds how many alerts one body may carry. Alertmanager truncates
// groups itself (truncatedAlerts); a body beyond this is not a webhook.
const MaxAlerts = 10000

// body is the Alertmanager webhook payload (version "4"). Unknown fields are
// ignored. Label maps stay raw so non-string values can be stringified.
type body struct {
	Receiver          string            `json:"receiver"`
	Status            string            `json:"status"`
	Alerts            []json.RawMessage `json:"alerts"`
	GroupLabels       json.RawMessage   `json:"groupLabels"`
	CommonLabels      json.RawMessage   `json:"commonLabels"`
	CommonAnnotations json.RawMessage   `json:"commonAnnotations"`
	ExternalURL       string            `json:"externalURL"`
	Version           string            `json:"version"`
	GroupKey          string            `json:"groupKey"`
	TruncatedAlerts   int               `json:"truncatedAlerts"`
}

type alert struct {
	Status       string          `json:"status"`
	Labels       json.RawMessage `json:"labels"`
	Annotations  json.RawMessage `json:"annotations"`
	StartsAt     *string         `json:"startsAt"`
	EndsAt       *string         `json:"endsAt"`
	GeneratorURL string          `json:"generatorURL"`
	Fingerprint  string          `json:"fingerprint"`
}

// burnRateKeys are read in this order, each from labels then annotations.
var burnRateKeys = []string{"burn_rate", "slo_burn_rate", "burnRate"}

// Parse decodes an Alertmanager-format webhook body and normalises each alert.
// receivedAt is stamped on every alert. It returns a *FieldError (wrapping
// ErrInvalid) for malformed JSON or a missing or mistyped required field:
// alerts (at least one), and per alert status (firing or resolved), labels
// and startsAt. Every label, annotation and kept field is bounded in size and
// count and may carry no control character (limits.go); startsAt and endsAt
// must fall between the epoch and a few minutes after receivedAt. Every alert
// is checked before Parse returns any, so a caller that files only after
// Parse succeeded never stores half a body. Unknown fields are ignored.
func Parse(b []byte, receivedAt time.Time) ([]contracts.AlertV1, error) {
	return parse(b, receivedAt, true)
}

// parse is Parse, with the hand decoder (hand) or encoding/json alone.
func parse(b []byte, receivedAt time.Time, hand bool) ([]contracts.AlertV1, error) {
	if hand {
		if alerts, ok := decodeHand(b); ok {
			return parseHand(alerts, receivedAt.UTC())
		}
	}
	bd, maps, err := decodeBody(b)
	if err != nil {
		return nil, err
	}
	if bd.Alerts == nil {
		return nil, fieldErr("alerts", "required")
	}
	if len(bd.Alerts) == 0 {
		return nil, fieldErr("alerts", "at least one alert is required")
	}
	if len(bd.Alerts) > MaxAlerts {
		return nil, fieldErr("alerts", "%d alerts, at most %d", len(bd.Alerts), MaxAlerts)
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"groupLabels", bd.GroupLabels}, {"commonLabels", bd.CommonLabels}, {"commonAnnotations", bd.CommonAnnotations}} {
		if maps {
			break // decoded as maps of strings already
		}
		if _, err := stringMap(f.raw); err != nil {
			return nil, fieldErr(f.name, "%s", err.Error())
		}
	}
	out := make([]contracts.AlertV1, 0, len(bd.Alerts))
	for i, raw := range bd.Alerts {
		a, err := normalise(raw, fmt.Sprintf("alerts[%d]", i), receivedAt.UTC())
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// fastBody is body with its group and common maps decoded in the same
// pass, for a body whose maps are objects of strings.
type fastBody struct {
	body
	GroupLabels       map[string]string `json:"groupLabels"`
	CommonLabels      map[string]string `json:"commonLabels"`
	CommonAnnotations map[string]string `json:"commonAnnotations"`
}

// decodeBody decodes b. maps reports that its group and common maps were
// decoded as objects of strings, which is all stringMap checks of them.
// A body with a null anywhere (stringMap drops a null value, where a
// decoded map would keep "") or a map of other values takes the general
// path: the maps stay raw and their errors are stringMap's.
func decodeBody(b []byte) (bd body, maps bool, err error) {
	if !bytes.Contains(b, null) {
		var f fastBody
		if json.Unmarshal(b, &f) == nil {
			return f.body, true, nil
		}
	}
	if err := json.Unmarshal(b, &bd); err != nil {
		return body{}, false, jsonErr("", err)
	}
	return bd, false, nil
}

// null is JSON's null literal.
var null = []byte("null")

func jsonErr(prefix string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := te.Field
		if prefix != "" {
			f = prefix + "." + f
		}
		return fieldErr(strings.Trim(f, "."), "must be a JSON %s", jsonTypeName(te.Type.String()))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &FieldError{Field: prefix, Msg: fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)}
	}
	return &FieldError{Field: prefix, Msg: "malformed JSON: " + err.Error()}
}

func jsonTypeName(goType string) string {
	switch {
	case goType == "string" || goType == "*string":
		return "string"
	case strings.HasPrefix(goType, "[]"):
		return "array"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "float"):
		return "number"
	default:
		return "object"
	}
}

// stringMap decodes a label or annotation map. Values that are not strings
// (a sender that types its labels) are kept as their JSON text.
func stringMap(raw json.RawMessage) (map[string]string, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if !bytes.Contains(raw, []byte("null")) {
		// The usual object, all strings, decodes in one pass; a null
		// (dropped below) or another type takes the general path.
		var out map[string]string
		if json.Unmarshal(raw, &out) == nil {
			return out, nil
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errors.New("must be a JSON object of strings")
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if bytes.Equal(v, []byte("null")) {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			var buf bytes.Buffer
			if json.Compact(&buf, v) != nil {
				return nil, errors.New("must be a JSON object of strings")
			}
			s = buf.String()
		}
		out[k] = s
	}
	return out, nil
}

// zeroTime is Go's zero time as SigNoz and Alertmanager write it for an
// alert that is still firing.
var zeroTime = time.Time{}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}

// parseHand is Parse for a body the hand decoder read: the same checks,
// in the same order, as the alerts encoding/json decodes.
func parseHand(alerts []handAlert, receivedAt time.Time) ([]contracts.AlertV1, error) {
	if alerts == nil {
		return nil, fieldErr("alerts", "required")
	}
	if len(alerts) == 0 {
		return nil, fieldErr("alerts", "at least one alert is required")
	}
	if len(alerts) > MaxAlerts {
		return nil, fieldErr("alerts", "%d alerts, at most %d", len(alerts), MaxAlerts)
	}
	out := make([]contracts.AlertV1, 0, len(alerts))
	for i, h := range alerts {
		at := "alerts[" + strconv.Itoa(i) + "]"
		d, err := checkDecoded(decoded{alert: h.alert, labels: h.labels, annotations: h.annotations}, at)
		if err != nil {
			return nil, err
		}
		a, err := finish(d, h.raw, at, receivedAt)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func normalise(raw json.RawMessage, at string, receivedAt time.Time) (contracts.AlertV1, error) {
	d, err := decodeAlert(raw, at)
	if err != nil {
		return contracts.AlertV1{}, err
	}
	return finish(d, raw, at, receivedAt)
}

// finish checks the decoded alert d at path at (raw its bytes) and
// normalises it.
func finish(d decoded, raw []byte, at string, receivedAt time.Time) (contracts.AlertV1, error) {
	if err := checkAlert(at, d.alert, d.labels, d.annotations); err != nil {
		return contracts.AlertV1{}, err
	}
	if err := checkService(at, d.labels); err != nil {
		return contracts.AlertV1{}, err
	}
	out := d.normalised(raw, receivedAt)
	if err := d.setEndsAt(&out, at, receivedAt); err != nil {
		return contracts.AlertV1{}, err
	}
	out.BurnRate, out.BurnRateSource = burnRate(d.labels, d.annotations)
	out.Test = isTest(d.labels)
	out.NoData = isNoData(d.labels)
	if out.Fingerprint == "" {
		out.Fingerprint = Fingerprint(d.labels)
	}
	out.IncidentID = IncidentID(out.Service, out.RuleID, out.StartsAt)
	if err := checkTimes(at, d.Status, d.startsAt, nil, receivedAt); err != nil {
		return contracts.AlertV1{}, err
	}
	if err := checkSize(at, out); err != nil {
		return contracts.AlertV1{}, err
	}
	return out, nil
}

// decoded is one alert of a webhook body, its maps and start checked.
type decoded struct {
	alert
	labels, annotations map[string]string
	startsAt            time.Time
}

// decodeAlert decodes the alert at path at and checks its status, labels,
// annotations and startsAt, in that order.
func decodeAlert(raw json.RawMessage, at string) (decoded, error) {
	if d, ok := decodeFast(raw); ok {
		return checkDecoded(d, at)
	}
	return decodeGeneral(raw, at)
}

// decodeGeneral is decodeAlert for any alert: the alert, then its labels
// and annotations (stringMap).
func decodeGeneral(raw json.RawMessage, at string) (decoded, error) {
	var d decoded
	if err := json.Unmarshal(raw, &d.alert); err != nil {
		return decoded{}, jsonErr(at, err)
	}
	if d.Status != contracts.AlertFiring && d.Status != contracts.AlertResolved {
		if d.Status == "" {
			return decoded{}, fieldErr(at+".status", "required")
		}
		return decoded{}, fieldErr(at+".status", "%q is neither firing nor resolved", d.Status)
	}
	var err error
	if d.labels, err = stringMap(d.Labels); err != nil {
		return decoded{}, fieldErr(at+".labels", "%s", err.Error())
	}
	if d.labels == nil {
		return decoded{}, fieldErr(at+".labels", "required")
	}
	if d.annotations, err = stringMap(d.Annotations); err != nil {
		return decoded{}, fieldErr(at+".annotations", "%s", err.Error())
	}
	return checkDecoded(d, at)
}

// fastAlert is alert with its labels and annotations decoded in the same
// pass.
type fastAlert struct {
	alert
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// decodeFast decodes an alert in one pass when it holds no null (stringMap
// drops a null value, where a decoded map would keep "") and its maps are
// objects of strings; ok is false otherwise, and decodeAlert's general
// path decodes it, with its errors. Both paths give the same maps: an
// alert that may name its labels or annotations twice takes the general
// path, since encoding/json merges a repeated object into the map it
// decoded, where the general path keeps the last (TestFastDecodeIsGeneral).
func decodeFast(raw json.RawMessage) (decoded, bool) {
	if bytes.Contains(raw, null) || !namesOnce(raw) {
		return decoded{}, false
	}
	var f fastAlert
	if json.Unmarshal(raw, &f) != nil {
		return decoded{}, false
	}
	return decoded{alert: f.alert, labels: f.Labels, annotations: f.Annotations}, true
}

// namesOnce reports that raw can name the labels and the annotations
// field at most once each: it is ASCII with no \u escape (encoding/json
// matches a name case-insensitively, with Unicode folding: "labelſ" is
// "labels"), and "labels" and "annotations", in any case, occur at most
// once each.
func namesOnce(raw []byte) bool {
	if bytes.Contains(raw, []byte(`\u`)) {
		return false
	}
	for _, c := range raw {
		if c >= 0x80 {
			return false
		}
	}
	return countFold(raw, "labels") <= 1 && countFold(raw, "annotations") <= 1
}

// countFold counts the occurrences of the lower-case ASCII word w in b, in
// any ASCII case.
func countFold(b []byte, w string) int {
	n := 0
	for i := 0; i+len(w) <= len(b); i++ {
		if b[i]|0x20 == w[0] && bytes.EqualFold(b[i:i+len(w)], []byte(w)) {
			n++
		}
	}
	return n
}

// checkDecoded checks d's status and labels (again, on the general path)
// and its startsAt, and parses startsAt.
func checkDecoded(d decoded, at string) (decoded, error) {
	if d.Status != contracts.AlertFiring && d.Status != contracts.AlertResolved {
		if d.Status == "" {
			return decoded{}, fieldErr(at+".status", "required")
		}
		return decoded{}, fieldErr(at+".status", "%q is neither firing nor resolved", d.Status)
	}
	if d.labels == nil {
		return decoded{}, fieldErr(at+".labels", "required")
	}
	if d.StartsAt == nil || *d.StartsAt == "" {
		return decoded{}, fieldErr(at+".startsAt", "required")
	}
	var err error
	d.startsAt, err = parseTime(*d.StartsAt)
	if err != nil {
		return decoded{}, fieldErr(at+".startsAt", "not an RFC 3339 time")
	}
	if d.startsAt.Equal(zeroTime) {
		// An RFC 3339 time, out of range: Go's zero time says "never", which
		// is an end's value, not a start's.
		return decoded{}, fieldErr(at+".startsAt", "%s is before 1970-01-01 (Go's zero time: the sender set no start)", d.startsAt.Format(time.RFC3339))
	}
	return d, nil
}

// normalised is the AlertV1 of d, without its end, burn rate, flags and ids.
func (d decoded) normalised(raw json.RawMessage, receivedAt time.Time) contracts.AlertV1 {
	out := contracts.AlertV1{
		Status:      d.Status,
		Service:     firstOf(d.labels, serviceLabels...),
		AlertName:   d.labels["alertname"],
		Severity:    d.labels["severity"],
		StartsAt:    d.startsAt,
		Fingerprint: d.Fingerprint,
		Labels:      d.labels,
		Annotations: d.annotations,
		ReceivedAt:  receivedAt,
		Raw:         append(json.RawMessage(nil), raw...),
		Links: contracts.AlertLinks{
			Generator:     d.GeneratorURL,
			RelatedTraces: either(firstOf(d.annotations, "related_traces"), firstOf(d.labels, "related_traces")),
			RelatedLogs:   either(firstOf(d.annotations, "related_logs"), firstOf(d.labels, "related_logs")),
		},
	}
	out.RuleID = firstOf(d.labels, "ruleId", "rule_id")
	if out.RuleID == "" {
		out.RuleID = out.AlertName
	}
	return out
}

// setEndsAt checks d's endsAt and keeps it on out when it is an end.
func (d decoded) setEndsAt(out *contracts.AlertV1, at string, receivedAt time.Time) error {
	if d.EndsAt == nil || *d.EndsAt == "" {
		return nil
	}
	endsAt, err := parseTime(*d.EndsAt)
	if err != nil {
		return fieldErr(at+".endsAt", "not an RFC 3339 time")
	}
	if err := checkTimes(at, d.Status, d.startsAt, &endsAt, receivedAt); err != nil {
		return err
	}
	// A firing alert's endsAt is either Go's zero time (SigNoz: still
	// firing) or Alertmanager's resolve timeout, a guess: neither is an end.
	if d.Status == contracts.AlertResolved && !endsAt.Equal(zeroTime) {
		out.EndsAt = &endsAt
	}
	return nil
}

func either(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func firstOf(m map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := strings.TrimSpace(m[k]); v != "" {
			return v
		}
	}
	return ""
}

// burnRate reads the first of burnRateKeys, labels before annotations, that
// parses as a finite number. Anything else is 0: the gate fails closed on it.
func burnRate(labels, annotations map[string]string) (float64, string) {
	for _, k := range burnRateKeys {
		for _, src := range []struct {
			name string
			m    map[string]string
		}{{"labels", labels}, {"annotations", annotations}} {
			v, ok := src.m[k]
			if !ok {
				continue
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
			return f, src.name + "." + k
		}
	}
	return 0, ""
}

// isTest reports SigNoz's notification-channel test: label testalert="true"
// or an alertname of the form "Test Alert (…)".
func isTest(labels map[string]string) bool {
	return strings.EqualFold(labels["testalert"], "true") || strings.HasPrefix(labels["alertname"], "Test Alert (")
}

// isNoData reports SigNoz's "[No data]" alerts: label nodata="true", or the
// "[No data]" prefix SigNoz puts on the alert name.
func isNoData(labels map[string]string) bool {
	return strings.EqualFold(labels["nodata"], "true") || strings.HasPrefix(strings.TrimSpace(labels["alertname"]), "[No data]")
}

// Fingerprint derives a stable fingerprint from the label set, for senders
// that send none: the sha256 of the sorted name=value pairs, 16 hex digits.
func Fingerprint(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(labels[k]))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// IncidentID is the deterministic id of the firing episode of (service, rule)
// that began at startsAt: "inc-<service slug>-<16 hex>". It is safe as a KV
// key and in a Nats-Msg-Id. The ingester's incident index may attach an alert
// to an incident already open for (service, rule) instead.
func IncidentID(service, rule string, startsAt time.Time) string {
	return "inc-" + slug(service) + "-" + shortHash(service, rule, strconv.FormatInt(startsAt.Unix(), 10))
}

// RuleKey is the index key of (service, rule): one open incident per key.
func RuleKey(service, rule string) string {
	return "open." + slug(service) + "." + shortHash(service, rule)
}

// shortHash is the first 16 hex digits of the sha256 of parts, each
// length-prefixed ("<len>:<part>"), so that no two tuples share an input.
// The input is built in a buffer on the stack (when it fits) and only the
// digits kept are encoded: one allocation, the result (TestIDsAreStable).
func shortHash(parts ...string) string {
	var buf [512]byte
	b := buf[:0]
	for _, p := range parts {
		b = strconv.AppendInt(b, int64(len(p)), 10)
		b = append(b, ':')
		b = append(b, p...)
	}
	sum := sha256.Sum256(b)
	var out [16]byte
	hex.Encode(out[:], sum[:8])
	return string(out[:])
}

// slug keeps [a-z0-9-] of s, at most 40 characters; "unscoped" when empty.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if b.Len() >= 40 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		case r == '_' || r == '.' || r == ' ' || r == '/':
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "unscoped"
	}
	return b.String()
}
