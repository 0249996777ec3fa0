package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Kind is the type of a declared variable's value.
type Kind uint8

// Kinds.
const (
	KindString Kind = iota
	KindInt
	KindFloat
	KindDuration
	KindBool
	KindList
	KindURL
	KindEnum
)

// Decl declares one variable a service reads: its name, type, default,
// whether it is secret, and what it means. The same declarations read the
// environment, generate docs/configuration.md and drive `agentk config`'s
// redaction.
type Decl struct {
	Name string
	Kind Kind
	// Default is the value when the variable is unset, written as a user
	// would write it ("30s", "0.7"); empty means none. Parsed like a value.
	Default string
	// DocDefault, when set, is what the documentation shows as the default
	// instead of Default (a default computed from other variables).
	DocDefault string
	// Doc says what the variable means, for docs/configuration.md.
	Doc string
	// Secret values are never shown; they may also be given as NAME_FILE,
	// unless External.
	Secret bool
	// External variables are read by a library (the OpenTelemetry SDK), not
	// through Spec.Read: declared for the docs and redaction, no NAME_FILE.
	External bool
	// Required records a problem when the variable is unset.
	Required bool
	// Min and Max bound an Int or a Float (inclusive): Min defaults to 0,
	// Max zero is no upper bound.
	Min, Max float64
	// MinDur and MaxDur bound a Duration (inclusive); MaxDur zero: no upper bound.
	MinDur, MaxDur time.Duration
	// Seconds lets a Duration be written as a bare number of seconds.
	Seconds bool
	// Allowed are an Enum's values (compared case-insensitively, returned lower-case).
	Allowed []string
	// Schemes are a URL's accepted schemes (default http and https).
	Schemes []string
}

// HasFile reports whether d may be given as NAME_FILE.
func (d Decl) HasFile() bool { return d.Secret && !d.External }

// Spec is the set of variables one component (a service, or every process)
// declares.
type Spec struct {
	// Component names the component in errors and docs ("gate").
	Component string
	// Err, when set, is the component's own sentinel that every problem
	// also wraps (gate's config.ErrInvalid).
	Err  error
	Vars []Decl
}

// Lookup returns the declaration of name.
func (s Spec) Lookup(name string) (Decl, bool) {
	for _, d := range s.Vars {
		if d.Name == name {
			return d, true
		}
	}
	return Decl{}, false
}

// Names returns every declared name, with NAME_FILE after each variable
// that may be given as a file.
func (s Spec) Names() []string {
	var out []string
	for _, d := range s.Vars {
		out = append(out, d.Name)
		if d.HasFile() {
			out = append(out, d.Name+"_FILE")
		}
	}
	return out
}

// Values is a Spec read from one environment: typed getters over every
// declared variable, and every problem found.
type Values struct {
	spec   Spec
	raw    map[string]string
	set    map[string]bool
	parsed map[string]any
	vars   []Var
	probs  []string
}

// Read reads and validates every variable of s through getenv (NAME_FILE
// from the disk), recording every problem.
func (s Spec) Read(getenv func(string) string) *Values {
	return s.ReadWith(getenv, os.ReadFile)
}

// ReadWith is Read with the function that reads NAME_FILE.
func (s Spec) ReadWith(getenv func(string) string, readFile func(string) ([]byte, error)) *Values {
	v := &Values{spec: s, raw: map[string]string{}, set: map[string]bool{}, parsed: map[string]any{}}
	for _, d := range s.Vars {
		v.read(d, getenv, readFile)
	}
	return v
}

// read reads one variable: its text (or its file's), then its value.
func (v *Values) read(d Decl, getenv func(string) string, readFile func(string) ([]byte, error)) {
	text, src, file, ok := v.text(d, getenv, readFile)
	if !ok {
		v.parsed[d.Name] = zero(d.Kind)
		v.vars = append(v.vars, Var{Name: d.Name, Source: Unset, Secret: d.Secret, Help: d.Doc})
		return
	}
	shown := text
	switch {
	case d.Secret && file != "":
		shown = Redacted + " (from " + file + ")"
	case d.Secret && text != "":
		shown = Redacted
	case d.Kind == KindURL:
		shown = redactURL(text)
	}
	if text == "" {
		src = Unset
		if d.Required {
			v.Failf(d.Name, "required")
		}
		v.parsed[d.Name] = zero(d.Kind)
	} else {
		v.raw[d.Name] = text
		v.parsed[d.Name] = v.parse(d, text, src)
	}
	v.vars = append(v.vars, Var{Name: d.Name, Value: shown, Source: src, Secret: d.Secret, Help: d.Doc})
}

// text returns a variable's text and where it came from: the variable, its
// file, or the default. ok is false when reading the file failed.
func (v *Values) text(d Decl, getenv func(string) string, readFile func(string) ([]byte, error)) (text string, src Source, file string, ok bool) {
	text = strings.TrimSpace(getenv(d.Name))
	if d.HasFile() {
		file = strings.TrimSpace(getenv(d.Name + "_FILE"))
	}
	switch {
	case text != "" && file != "":
		v.Problem("%s and %s_FILE are both set: give one, not both", d.Name, d.Name)
		return "", Unset, "", false
	case file != "":
		b, err := readFile(file)
		if err != nil {
			v.Failf(d.Name+"_FILE", "%v", err)
			return "", Unset, "", false
		}
		s := strings.TrimSpace(string(b))
		if s == "" {
			// An empty secret file is an unset variable: Compose mounts
			// every declared secret, and an optional one (Slack's token
			// with Slack off, a key the provider does not need) is given as
			// an empty file. A required variable still fails as unset.
			return d.Default, FromDefault, "", true
		}
		v.set[d.Name] = true
		return s, FromFile, file, true
	case text != "":
		v.set[d.Name] = true
		return text, FromEnv, "", true
	}
	return d.Default, FromDefault, "", true
}

// parse converts text to d's kind, recording a problem (and returning the
// parsed default) when it does not fit.
func (v *Values) parse(d Decl, text string, src Source) any {
	x, err := ParseValue(d, text)
	if err == nil {
		return x
	}
	got := text
	if d.Secret {
		got = Redacted
	}
	if src == FromDefault {
		// A programming error in the declaration: say so loudly.
		v.Failf(d.Name, "the declared default %q: %v", got, err)
		return zero(d.Kind)
	}
	v.Failf(d.Name, "%v, got %q", err, got)
	def, derr := ParseValue(d, d.Default)
	if d.Default == "" || derr != nil {
		return zero(d.Kind)
	}
	return def
}

func zero(k Kind) any {
	switch k {
	case KindInt:
		return 0
	case KindFloat:
		return 0.0
	case KindDuration:
		return time.Duration(0)
	case KindBool:
		return false
	case KindList:
		return []string(nil)
	}
	return ""
}

// Failf records a problem of variable name (a cross-field check).
func (v *Values) Failf(name, format string, args ...any) {
	v.probs = append(v.probs, name+": "+fmt.Sprintf(format, args...))
}

// Problem records a problem that names its variables itself.
func (v *Values) Problem(format string, args ...any) {
	v.probs = append(v.probs, fmt.Sprintf(format, args...))
}

// IsSet reports whether name was given (as itself or as NAME_FILE), not
// taken from its default.
func (v *Values) IsSet(name string) bool { return v.set[name] }

// Raw returns name's text as given or defaulted, before parsing.
func (v *Values) Raw(name string) string { return v.raw[name] }

func get[T any](v *Values, name string) T {
	x, ok := v.parsed[name].(T)
	if !ok {
		v.Failf(name, "not declared as this type (a bug in %s's declarations)", v.spec.Component)
	}
	return x
}

// String returns a String, URL or Enum variable (a secret too).
func (v *Values) String(name string) string { return get[string](v, name) }

// Int returns an Int variable.
func (v *Values) Int(name string) int { return get[int](v, name) }

// Float returns a Float variable.
func (v *Values) Float(name string) float64 { return get[float64](v, name) }

// Duration returns a Duration variable.
func (v *Values) Duration(name string) time.Duration { return get[time.Duration](v, name) }

// Bool returns a Bool variable.
func (v *Values) Bool(name string) bool { return get[bool](v, name) }

// List returns a List variable.
func (v *Values) List(name string) []string { return get[[]string](v, name) }

// Describe returns every declared variable as read, in declaration order,
// secrets redacted.
func (v *Values) Describe() []Var { return v.vars }

// Err returns nil, or one error listing every problem, which wraps
// ErrInvalid and the Spec's own sentinel.
func (v *Values) Err() error {
	if len(v.probs) == 0 {
		return nil
	}
	return &Problems{Component: v.spec.Component, sentinel: v.spec.Err, List: v.probs}
}

// Problems is every problem of one component's configuration.
type Problems struct {
	Component string
	List      []string
	sentinel  error
}

func (p *Problems) Error() string {
	head := p.Component + ": invalid configuration"
	if p.sentinel != nil {
		head = p.sentinel.Error()
	}
	return head + ":\n  " + strings.Join(p.List, "\n  ")
}

// Is matches ErrInvalid and the component's own sentinel.
func (p *Problems) Is(target error) bool {
	return target == ErrInvalid || (p.sentinel != nil && errors.Is(p.sentinel, target))
}

// AllOrList reads a List variable that is `all` or a list of names valid
// accepts (AGENTK_SHADOW, read by the gate and the deployer alike).
func (v *Values) AllOrList(name string, valid func(string) bool) (all bool, items []string) {
	for _, s := range v.List(name) {
		switch {
		case s == "all":
			all = true
		case valid(s):
			items = append(items, s)
		default:
			v.Failf(name, "%q is neither all nor a service name", s)
		}
	}
	return all, items
}
