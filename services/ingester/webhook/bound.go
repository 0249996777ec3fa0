package webhook

import (
	"math"
	"reflect"
	"sync"
	"time"
)

// unbounded is jsonBound's answer for a value it does not know how to
// bound: the caller then measures the encoding itself.
const unbounded = 1 << 62

var (
	timeType  = reflect.TypeFor[time.Time]()
	bytesType = reflect.TypeFor[[]byte]()
)

// jsonBound is an upper bound of len(json.Marshal(v)), found without
// encoding: a string's byte is at most 6 bytes escaped (\u00XX, \ufffd for
// an invalid byte, \u2028), a time at most 40, a finite number 32, bytes (raw JSON
// kept as it is, or base64) twice their length; every name, quote, colon
// and comma is counted. checkSize encodes an alert only when the bound
// exceeds its limit, which a usual alert's does by far not.
func jsonBound(v reflect.Value) int {
	switch v.Kind() {
	case reflect.String:
		return 6*v.Len() + 2
	case reflect.Bool:
		return 5
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return 32
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return unbounded // not encodable: the caller's encoding says so
		}
		return 32
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 4
		}
		return jsonBound(v.Elem())
	case reflect.Map:
		if m, ok := v.Interface().(map[string]string); ok {
			return stringMapBound(m)
		}
		n := 2
		for it := v.MapRange(); it.Next(); {
			n += jsonBound(it.Key()) + jsonBound(it.Value()) + 2
		}
		return n
	case reflect.Slice:
		if v.Type().ConvertibleTo(bytesType) {
			return 2*v.Len() + 4
		}
		n := 2
		for i := range v.Len() {
			n += jsonBound(v.Index(i)) + 1
		}
		return n
	case reflect.Struct:
		return structBound(v)
	}
	return unbounded
}

// stringMapBound is jsonBound of a map of strings, without reflect's copy
// of each key and value.
func stringMapBound(m map[string]string) int {
	n := 2
	for k, v := range m {
		n += 6*len(k) + 2 + 6*len(v) + 2 + 2
	}
	return n
}

// structBound is jsonBound of a struct: each exported field's name (its tag
// at most) and value.
func structBound(v reflect.Value) int {
	if v.Type() == timeType {
		if y := v.Interface().(time.Time).Year(); y < 0 || y > 9999 {
			return unbounded // not encodable as RFC 3339
		}
		return 40
	}
	n := 2
	for _, f := range fieldsOf(v.Type()) {
		b := jsonBound(v.Field(f.index))
		if b >= unbounded {
			return unbounded
		}
		n += f.name + b
	}
	return n
}

// boundField is an exported field of a struct type: its index, and the
// bound of its name's encoding (the Go name and the tag, quotes, colon and
// comma).
type boundField struct{ index, name int }

// fields caches fieldsOf by struct type: reading a tag parses it.
var fields sync.Map // reflect.Type → []boundField

// fieldsOf lists t's exported fields.
func fieldsOf(t reflect.Type) []boundField {
	if fs, ok := fields.Load(t); ok {
		return fs.([]boundField)
	}
	var fs []boundField
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			fs = append(fs, boundField{index: i, name: len(f.Name) + len(f.Tag.Get("json")) + 4})
		}
	}
	fields.Store(t, fs)
	return fs
}
