package webhook

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// Bounds on what one alert may carry. Everything the ingester accepts travels
// on: sealed on agentk.alert.v1, embedded again in the investigator's report
// and the reviewer's review (beside the evidence), used as a KV key by the
// gate, printed by `agentk incidents` and posted to Slack. A value that
// passes here must fit all of those, so the bounds are far below what any
// one of them allows: an alert of MaxAlertBytes is about 87 KiB once sealed
// (base64), a twelfth of NATS's default 1 MiB maximum payload.
const (
	// MaxLabels and MaxAnnotations bound how many entries one alert has.
	MaxLabels      = 64
	MaxAnnotations = 64
	// MaxKeyBytes bounds a label or annotation name.
	MaxKeyBytes = 128
	// MaxIdentityBytes bounds the labels that name things: the service, the
	// rule, the alert name, the severity. They become ids, KV keys, log
	// fields and Slack headings.
	MaxIdentityBytes = 256
	// MaxLabelBytes bounds any other label value.
	MaxLabelBytes = 1024
	// MaxAnnotationBytes bounds an annotation value (descriptions, links).
	MaxAnnotationBytes = 8 << 10
	// MaxURLBytes bounds generatorURL.
	MaxURLBytes = 4 << 10
	// MaxFingerprintBytes bounds the sender's fingerprint.
	MaxFingerprintBytes = 128
	// MaxAlertBytes bounds one normalised alert as JSON (the raw alert
	// included, so unknown fields count too).
	MaxAlertBytes = 64 << 10
	// MaxClockSkew is how far ahead of the ingester's clock a time may be:
	// the sender's clock may run a little fast, never days.
	MaxClockSkew = 5 * time.Minute
	// MaxEndsAhead is how far ahead a firing alert's endsAt may be.
	// Alertmanager sets it to the resolve timeout (5 min by default) or what
	// Prometheus sent (a few evaluation intervals); a day is generous.
	MaxEndsAhead = 24 * time.Hour
)

// identityLabels are the labels bounded by MaxIdentityBytes.
var identityLabels = map[string]bool{
	"service.name": true, "service": true, "alertname": true, "ruleId": true, "rule_id": true, "severity": true,
}

// epoch is the earliest time accepted: nothing agentk investigates happened
// before it, and a query window from year 1 breaks the telemetry store.
var epoch = time.Unix(0, 0).UTC()

// badRune reports a character that must not appear in a value: C0 and C1
// control characters and DEL (NUL, ESC forge terminal output and log rows),
// and the Unicode bidirectional controls (RLO and friends reorder what a
// human reads). allowSpace lets tab, newline and carriage return through,
// for annotations, whose descriptions are prose.
func badRune(r rune, allowSpace bool) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return !allowSpace
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == utf8.RuneError:
		return true
	}
	return false
}

// checkText refuses a value that is too long, not UTF-8, or carries a
// character badRune refuses.
func checkText(field, v string, max int, allowSpace bool) error {
	if len(v) > max {
		return fieldErr(field, "%d bytes, max %d", len(v), max)
	}
	if !utf8.ValidString(v) {
		return fieldErr(field, "not valid UTF-8")
	}
	for i, r := range v {
		if badRune(r, allowSpace) {
			return fieldErr(field, "control character %U at byte %d is not allowed", r, i)
		}
	}
	return nil
}

// keyField names entry k of a map in a field path; a key that is itself
// unprintable or huge is quoted or described rather than echoed.
func keyField(prefix, k string) string {
	if len(k) > MaxKeyBytes {
		return fmt.Sprintf("%s[<name of %d bytes>]", prefix, len(k))
	}
	if checkText("", k, MaxKeyBytes, false) != nil {
		return prefix + "[" + strconv.QuoteToASCII(k) + "]"
	}
	return prefix + "." + k
}

// checkMap bounds a label (labels true) or annotation map, in key order so
// the error names the same field every time: a map that passes is checked
// in one pass with no field named, and only one that does not is checked
// again in key order, naming the first offending field.
func checkMap(prefix string, m map[string]string, labels bool) error {
	maxN, what := MaxAnnotations, "annotations"
	if labels {
		maxN, what = MaxLabels, "labels"
	}
	if len(m) > maxN {
		return fieldErr(prefix, "%d %s, max %d", len(m), what, maxN)
	}
	ok := true
	for k, v := range m { // the usual map passes, with no field named
		if k == "" || checkText("", k, MaxKeyBytes, false) != nil || checkText("", v, entryMax(k, labels), !labels) != nil {
			ok = false
			break
		}
	}
	if ok {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := keyField(prefix, k)
		if k == "" {
			return fieldErr(prefix, "empty name")
		}
		if err := checkText(f+" (name)", k, MaxKeyBytes, false); err != nil {
			if fe, ok := err.(*FieldError); ok {
				fe.Field = f
			}
			return err
		}
		if err := checkText(f, m[k], entryMax(k, labels), !labels); err != nil {
			return err
		}
	}
	return nil
}

// entryMax is the bound of the value of label (labels true) or annotation k.
func entryMax(k string, labels bool) int {
	switch {
	case labels && identityLabels[k]:
		return MaxIdentityBytes
	case labels:
		return MaxLabelBytes
	}
	return MaxAnnotationBytes
}

// checkTimes keeps startsAt and endsAt in a range the rest of the pipeline
// can query and seal: from the epoch to MaxClockSkew after receivedAt
// (endsAt of a firing alert: MaxEndsAhead). Go's zero time as endsAt means
// "not ended" (Alertmanager writes 0001-01-01T00:00:00Z) and is allowed.
func checkTimes(at string, status string, startsAt time.Time, endsAt *time.Time, receivedAt time.Time) error {
	if mutant.Off(mutant.IngestTimeRange) {
		return nil
	}
	latest := receivedAt.Add(MaxClockSkew)
	if startsAt.Before(epoch) {
		return fieldErr(at+".startsAt", "%s is before 1970-01-01", startsAt.Format(time.RFC3339))
	}
	if startsAt.After(latest) {
		return fieldErr(at+".startsAt", "%s is more than %s after the ingester's clock (%s)", startsAt.Format(time.RFC3339), MaxClockSkew, receivedAt.Format(time.RFC3339))
	}
	if endsAt == nil || endsAt.Equal(zeroTime) {
		return nil
	}
	ahead := latest
	if status == contracts.AlertFiring {
		ahead = receivedAt.Add(MaxEndsAhead)
	}
	switch {
	case endsAt.Before(epoch):
		return fieldErr(at+".endsAt", "%s is before 1970-01-01", endsAt.Format(time.RFC3339))
	case endsAt.After(ahead):
		return fieldErr(at+".endsAt", "%s is more than %s after the ingester's clock (%s)", endsAt.Format(time.RFC3339), ahead.Sub(receivedAt), receivedAt.Format(time.RFC3339))
	case endsAt.Before(startsAt) && status == contracts.AlertResolved:
		return fieldErr(at+".endsAt", "%s is before startsAt %s", endsAt.Format(time.RFC3339), startsAt.Format(time.RFC3339))
	}
	return nil
}

// checkAlert bounds the fields of one raw alert that are kept as they are.
func checkAlert(at string, a alert, labels, annotations map[string]string) error {
	if mutant.Off(mutant.IngestFieldBounds) {
		return nil
	}
	if err := checkMap(at+".labels", labels, true); err != nil {
		return err
	}
	if err := checkMap(at+".annotations", annotations, false); err != nil {
		return err
	}
	if err := checkText(at+".generatorURL", a.GeneratorURL, MaxURLBytes, false); err != nil {
		return err
	}
	return checkText(at+".fingerprint", a.Fingerprint, MaxFingerprintBytes, false)
}

// checkSize bounds the normalised alert as it will travel.
func checkSize(at string, a contracts.AlertV1) error {
	if mutant.Off(mutant.IngestFieldBounds) {
		return nil
	}
	if jsonBound(reflect.ValueOf(a)) <= MaxAlertBytes {
		return nil // no encoding can be larger
	}
	b, err := json.Marshal(a)
	if err != nil {
		return fieldErr(at, "cannot be encoded: %v", err)
	}
	if len(b) > MaxAlertBytes {
		return fieldErr(at, "%d bytes once normalised, max %d", len(b), MaxAlertBytes)
	}
	return nil
}

// serviceLabels are the labels a service name is read from, in order.
var serviceLabels = []string{"service.name", "service"}

// checkService refuses a service label that cannot name a service
// (contracts.ValidServiceName: a Compose service name, ASCII only). A name
// like "shоp-api" with a Cyrillic о would read as shop-api in every table
// and Slack message while it can never be acted on; it is refused here, and
// the error shows it escaped. An alert with no service label is unscoped.
func checkService(at string, labels map[string]string) error {
	if mutant.Off(mutant.IngestServiceName) {
		return nil
	}
	for _, k := range serviceLabels {
		v := strings.TrimSpace(labels[k])
		if v == "" {
			continue
		}
		if !contracts.ValidServiceName(v) {
			return fieldErr(at+".labels."+k, "%.80s is not a service name: ASCII letters, digits, '.', '_' and '-' only, starting with a letter or digit (a Docker Compose service name)", strconv.QuoteToASCII(v))
		}
		return nil
	}
	return nil
}
