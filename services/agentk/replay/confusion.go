package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// CorpusFile is the optional file in a corpus folder that says where the
// corpus came from and whether the rules were tuned on it.
const CorpusFile = "corpus.yaml"

// Provenance is a corpus's corpus.yaml. TunedOn is nil when the corpus does
// not say: the scoreboard then prints "not declared", never a guess.
type Provenance struct {
	Name    string `yaml:"name" json:"name"`
	Source  string `yaml:"source" json:"source"`
	TunedOn *bool  `yaml:"tuned_on" json:"tuned_on"`
}

// Sample is "in-sample", "out-of-sample" or "not declared".
func (p Provenance) Sample() string {
	switch {
	case p.TunedOn == nil:
		return "not declared"
	case *p.TunedOn:
		return "in-sample"
	default:
		return "out-of-sample"
	}
}

// ReadProvenance reads dir/corpus.yaml; a corpus without one has an empty
// Provenance named after its folder.
func ReadProvenance(dir string) (Provenance, error) {
	p := Provenance{Name: filepath.Base(filepath.Clean(dir))}
	b, err := os.ReadFile(filepath.Join(dir, CorpusFile))
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, err
	}
	if err := yaml.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%s: %w", filepath.Join(dir, CorpusFile), err)
	}
	if p.Name == "" {
		p.Name = filepath.Base(filepath.Clean(dir))
	}
	return p, nil
}

// Confusion is one investigator's confusion matrix of root causes:
// Counts[expected][diagnosed]. A replay that failed is diagnosed "error".
type Confusion struct {
	Investigator string
	Classes      []string
	Counts       map[string]map[string]int
}

// Confusions builds one matrix per investigator, in first-seen order; the
// classes are every expected or diagnosed class, sorted.
func Confusions(outs []Outcome) []Confusion {
	var order []string
	by := map[string]*Confusion{}
	for _, o := range outs {
		c, ok := by[o.Investigator]
		if !ok {
			c = &Confusion{Investigator: o.Investigator, Counts: map[string]map[string]int{}}
			by[o.Investigator] = c
			order = append(order, o.Investigator)
		}
		got := o.Diagnosis
		if o.Error != "" {
			got = "error"
		} else if got == "" {
			got = "(none)"
		}
		if c.Counts[o.Expect.RootCause] == nil {
			c.Counts[o.Expect.RootCause] = map[string]int{}
		}
		c.Counts[o.Expect.RootCause][got]++
		for _, k := range []string{o.Expect.RootCause, got} {
			if !slices.Contains(c.Classes, k) {
				c.Classes = append(c.Classes, k)
			}
		}
	}
	out := make([]Confusion, 0, len(order))
	for _, inv := range order {
		c := by[inv]
		slices.Sort(c.Classes)
		out = append(out, *c)
	}
	return out
}

// MarkdownCorpus renders the corpus's provenance line and a confusion
// matrix of root causes per investigator (rows expected, columns
// diagnosed; the diagonal is bold).
func MarkdownCorpus(w io.Writer, p Provenance, outs []Outcome) {
	fmt.Fprintf(w, "\n## Corpus\n\n`%s`: **%s**", p.Name, p.Sample())
	switch p.Sample() {
	case "in-sample":
		fmt.Fprint(w, " — the rules investigator was tuned on this corpus")
	case "out-of-sample":
		fmt.Fprint(w, " — the rules were not tuned on this corpus")
	}
	if p.Source != "" {
		fmt.Fprintf(w, ". Source: %s", p.Source)
	}
	fmt.Fprintln(w, ".")
	for _, c := range Confusions(outs) {
		fmt.Fprintf(w, "\n### Root causes, %s (rows expected, columns diagnosed)\n\n", c.Investigator)
		short := make([]string, len(c.Classes))
		for i, k := range c.Classes {
			short[i] = strings.ReplaceAll(k, "_", " ")
		}
		fmt.Fprintf(w, "| expected \\ diagnosed | %s |\n|---|%s\n", strings.Join(short, " | "), strings.Repeat("---|", len(c.Classes)))
		for _, exp := range c.Classes {
			row, ok := c.Counts[exp]
			if !ok {
				continue
			}
			cells := make([]string, len(c.Classes))
			for i, got := range c.Classes {
				switch n := row[got]; {
				case n == 0:
					cells[i] = "·"
				case got == exp:
					cells[i] = fmt.Sprintf("**%d**", n)
				default:
					cells[i] = fmt.Sprint(n)
				}
			}
			fmt.Fprintf(w, "| %s | %s |\n", exp, strings.Join(cells, " | "))
		}
	}
}
