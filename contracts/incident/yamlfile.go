package incident

import (
	"errors"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// yamlDoc is one parsed YAML file: it decodes into a raw struct and finds
// the line of any field for error messages.
type yamlDoc struct {
	name string
	file *ast.File
	ps   *problems
}

type tokenError interface {
	GetToken() *token.Token
	GetMessage() string
}

// decodeYAML parses b and decodes it into v. Unknown fields are tolerated:
// the format grows additively. It reports false when b is not usable.
func decodeYAML(name string, b []byte, v any, ps *problems) (*yamlDoc, bool) {
	f, err := parser.ParseBytes(b, 0)
	if err == nil {
		err = safeUnmarshal(b, v)
	}
	if err != nil {
		var te tokenError
		line := 0
		msg := err.Error()
		if errors.As(err, &te) {
			if tok := te.GetToken(); tok != nil {
				line = tok.Position.Line
			}
			msg = te.GetMessage()
		}
		ps.addf(name, line, "", "not valid YAML: %s", msg)
		return nil, false
	}
	return &yamlDoc{name: name, file: f, ps: ps}, true
}

// line returns the line of the node at path (map keys as strings, list
// indexes as ints), or of its nearest existing ancestor, or 0.
func (d *yamlDoc) line(path ...any) int {
	for n := len(path); n > 0; n-- {
		b := (&yaml.PathBuilder{}).Root()
		for _, p := range path[:n] {
			switch p := p.(type) {
			case string:
				b = b.Child(p)
			case int:
				b = b.Index(uint(p))
			}
		}
		node, err := b.Build().FilterFile(d.file)
		if err == nil && node != nil && node.GetToken() != nil {
			return node.GetToken().Position.Line
		}
	}
	return 0
}

// fail records a problem at the field path, which also names the field.
func (d *yamlDoc) fail(field string, path []any, format string, args ...any) {
	d.ps.addf(d.name, d.line(path...), field, format, args...)
}

// required checks that s is set.
func (d *yamlDoc) required(s, field string, path ...any) bool {
	if s == "" {
		d.fail(field, path, "required")
		return false
	}
	return true
}

// time parses an RFC 3339 field.
func (d *yamlDoc) time(s, field string, path ...any) time.Time {
	if !d.required(s, field, path...) {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		d.fail(field, path, "not RFC 3339")
		return time.Time{}
	}
	return t.UTC()
}

// errDecoderPanic reports input that made the YAML library panic (go-yaml
// v1.19.2 dereferences nil on some malformed tagged sequences; a fuzz seed
// under testdata/fuzz/FuzzIncidentYAML reproduces it). Outside input must never
// crash a replay, so it becomes an ordinary "not valid YAML" problem.
var errDecoderPanic = errors.New("the YAML decoder failed on this input")

func safeUnmarshal(b []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errDecoderPanic
		}
	}()
	return yaml.Unmarshal(b, v)
}
