package incident

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every error Load returns for a folder that breaks
// the format; errors.As with *Error gives each problem.
var ErrInvalid = errors.New("incident: invalid")

// maxProblems caps how many problems one Load reports: a folder with ten
// thousand bad lines needs the first few, not all of them.
const maxProblems = 50

// Problem is one violation of the format, located as precisely as the file
// allows: Line is the JSONL line, or the YAML line, or 0 when unknown.
type Problem struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// String renders the problem as `spans.jsonl:12: field "timestamp": not RFC 3339`.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.Field != "" {
		fmt.Fprintf(&b, ": field %q", p.Field)
	}
	b.WriteString(": ")
	b.WriteString(p.Msg)
	return b.String()
}

// Error is every problem found in one incident folder.
type Error struct {
	Dir       string
	Problems  []Problem
	Truncated bool
}

// Error lists the problems, one per line after the first.
func (e *Error) Error() string {
	lines := make([]string, 0, len(e.Problems)+1)
	for _, p := range e.Problems {
		lines = append(lines, p.String())
	}
	if e.Truncated {
		lines = append(lines, fmt.Sprintf("(only the first %d problems are shown)", maxProblems))
	}
	return fmt.Sprintf("incident %s: %s", e.Dir, strings.Join(lines, "\n  "))
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *Error) Unwrap() error { return ErrInvalid }

// problems collects Problems for one file.
type problems struct {
	list      []Problem
	truncated bool
}

func (ps *problems) add(p Problem) {
	if len(ps.list) >= maxProblems {
		ps.truncated = true
		return
	}
	ps.list = append(ps.list, p)
}

func (ps *problems) addf(file string, line int, field, format string, args ...any) {
	ps.add(Problem{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}
