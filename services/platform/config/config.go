// Package config is what every service's internal/config builds on: typed
// getters over a getenv function that collect every problem (the variable and
// what was expected) and report them all at once, secrets read from NAME or
// NAME_FILE, and Describe, which lists the effective configuration with
// secrets redacted for `agentk config`.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrInvalid wraps every configuration problem.
var ErrInvalid = errors.New("invalid configuration")

// Source says where a value came from.
type Source string

// Sources.
const (
	FromEnv     Source = "env"
	FromFile    Source = "file"
	FromDefault Source = "default"
	Unset       Source = "unset"
)

// Redacted replaces secret values in Describe.
const Redacted = "[redacted]"

// Var is one variable as read.
type Var struct {
	Name   string
	Value  string // redacted when Secret
	Source Source
	Secret bool
	// Help says what is expected.
	Help string
}

// Env reads variables from getenv and records what it read and every problem.
// It is not safe for concurrent use; read configuration once at start-up.
type Env struct {
	getenv   func(string) string
	readFile func(string) ([]byte, error)
	errs     []error
	vars     map[string]Var
}

// New returns an Env over getenv (os.Getenv in production, a map in tests).
func New(getenv func(string) string) *Env {
	return &Env{getenv: getenv, readFile: os.ReadFile, vars: map[string]Var{}}
}

// WithReadFile replaces the function that reads *_FILE secrets (tests).
func (e *Env) WithReadFile(f func(string) ([]byte, error)) *Env { e.readFile = f; return e }

func (e *Env) fail(name, expected, got string) {
	if got != "" {
		e.errs = append(e.errs, fmt.Errorf("%w: %s: expected %s, got %q", ErrInvalid, name, expected, got))
		return
	}
	e.errs = append(e.errs, fmt.Errorf("%w: %s: expected %s", ErrInvalid, name, expected))
}

// Failf records a problem found by the caller's own cross-field checks.
func (e *Env) Failf(name, format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf("%w: %s: %s", ErrInvalid, name, fmt.Sprintf(format, args...)))
}

func (e *Env) lookup(name, def, help string) (string, bool) {
	v := strings.TrimSpace(e.getenv(name))
	if v == "" {
		src := FromDefault
		if def == "" {
			src = Unset
		}
		e.vars[name] = Var{Name: name, Value: def, Source: src, Help: help}
		return def, false
	}
	e.vars[name] = Var{Name: name, Value: v, Source: FromEnv, Help: help}
	return v, true
}

// String returns name's value or def.
func (e *Env) String(name, def, help string) string {
	v, _ := e.lookup(name, def, help)
	return v
}

// Required returns name's value and records a problem when it is empty.
func (e *Env) Required(name, help string) string {
	v, ok := e.lookup(name, "", help)
	if !ok {
		e.fail(name, help+" (required)", "")
	}
	return v
}

// Int returns name as an integer in [lo, hi], or def.
func (e *Env) Int(name string, def, lo, hi int, help string) int {
	return typed(e, Decl{Name: name, Kind: KindInt, Min: float64(lo), Max: float64(hi)}, strconv.Itoa(def), def, help)
}

// Float returns name as a number in [lo, hi], or def.
func (e *Env) Float(name string, def, lo, hi float64, help string) float64 {
	return typed(e, Decl{Name: name, Kind: KindFloat, Min: lo, Max: hi}, strconv.FormatFloat(def, 'g', -1, 64), def, help)
}

// Duration returns name as a Go duration ("90s", "10m") of at least min, or def.
func (e *Env) Duration(name string, def, min time.Duration, help string) time.Duration {
	return typed(e, Decl{Name: name, Kind: KindDuration, MinDur: min}, def.String(), def, help)
}

// Bool returns name as a boolean (1/0, true/false, yes/no, on/off), or def.
func (e *Env) Bool(name string, def bool, help string) bool {
	return typed(e, Decl{Name: name, Kind: KindBool}, strconv.FormatBool(def), def, help)
}

// OneOf returns name's value when it is one of allowed, else def.
func (e *Env) OneOf(name, def string, allowed []string, help string) string {
	return typed(e, Decl{Name: name, Kind: KindEnum, Allowed: allowed}, def, def, help)
}

// URL returns name as an absolute URL with one of schemes, or def.
func (e *Env) URL(name, def string, schemes []string, help string) string {
	v := typed(e, Decl{Name: name, Kind: KindURL, Schemes: schemes}, def, def, help)
	// Credentials inside a URL are a secret.
	vr := e.vars[name]
	vr.Value = redactURL(vr.Value)
	e.vars[name] = vr
	return v
}

// List returns name split on commas, trimmed, empty and repeated items
// dropped, or def.
func (e *Env) List(name string, def []string, help string) []string {
	return typed(e, Decl{Name: name, Kind: KindList}, strings.Join(def, ","), def, help)
}

// typed reads d.Name with the one parser of its kind (ParseValue), or def.
func typed[T any](e *Env, d Decl, shown string, def T, help string) T {
	v, ok := e.lookup(d.Name, shown, help)
	if !ok {
		return def
	}
	x, err := ParseValue(d, v)
	if err != nil {
		got := v
		if d.Kind == KindURL {
			got = redactURL(v)
		}
		e.errs = append(e.errs, fmt.Errorf("%w: %s: %v, got %q", ErrInvalid, d.Name, err, got))
		return def
	}
	return x.(T)
}

// Declared reads name as s declares it: its kind, bounds, default and doc
// come from the declaration, so a package that reads a variable through Env
// (platform/bus) keeps no second copy of them. A name s does not declare is
// recorded as a problem (a programming error the package's test catches) and
// reads as T's zero value.
func Declared[T any](e *Env, s Spec, name string) T {
	var zero T
	d, ok := s.Lookup(name)
	if !ok {
		e.Failf(name, "not declared in %s", s.Component)
		return zero
	}
	def, err := ParseValue(d, d.Default)
	x, fits := def.(T)
	if err != nil || !fits {
		e.Failf(name, "declared default %q does not read as %T", d.Default, zero)
		return zero
	}
	return typed(e, d, d.Default, x, d.Doc)
}

// Secret returns the secret in name, or read from the file named by
// name_FILE (trailing newline trimmed). Setting both is a problem, as is an
// unreadable or empty file; required records a problem when neither is set.
// Describe shows secrets as Redacted.
func (e *Env) Secret(name string, required bool, help string) string {
	direct := strings.TrimSpace(e.getenv(name))
	file := strings.TrimSpace(e.getenv(name + "_FILE"))
	vr := Var{Name: name, Secret: true, Help: help, Source: Unset}
	defer func() { e.vars[name] = vr }()
	switch {
	case direct != "" && file != "":
		e.fail(name, "either "+name+" or "+name+"_FILE, not both", "")
		return ""
	case direct != "":
		vr.Source, vr.Value = FromEnv, Redacted
		return direct
	case file != "":
		b, err := e.readFile(file)
		if err != nil {
			e.fail(name+"_FILE", "a readable file", file)
			return ""
		}
		s := strings.TrimRight(string(b), "\r\n")
		if s == "" {
			e.fail(name+"_FILE", "a non-empty file", file)
			return ""
		}
		vr.Source, vr.Value = FromFile, Redacted+" (from "+file+")"
		return s
	}
	if required {
		e.fail(name, help+" (required; or "+name+"_FILE)", "")
	}
	return ""
}

// Err returns every recorded problem joined, each wrapping ErrInvalid, or nil.
func (e *Env) Err() error { return errors.Join(e.errs...) }

// Describe returns every variable read, sorted by name, secrets redacted.
func (e *Env) Describe() []Var {
	out := make([]Var, 0, len(e.vars))
	for _, v := range e.vars {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Render formats vars as an aligned table for `agentk config`.
func Render(vars []Var) string {
	w := 0
	for _, v := range vars {
		w = max(w, len(v.Name))
	}
	var b strings.Builder
	for _, v := range vars {
		val := v.Value
		if v.Source == Unset {
			val = "(unset)"
		}
		fmt.Fprintf(&b, "%-*s  %-7s  %s\n", w, v.Name, v.Source, val)
	}
	return b.String()
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = url.User(Redacted)
	return u.String()
}
