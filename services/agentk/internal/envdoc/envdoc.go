// Package envdoc is what agentk knows of its environment variables, made from
// the declarations alone (the platform's, the command line's and each
// registered service's platform/config.Spec): docs/configuration.md, the
// "Environment" section of every command's help, which names are secret, and
// the warning for a variable nothing reads.
package envdoc

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"agentk/platform/config"
	"agentk/platform/service"
)

// docs/configuration.md is generated from Rows by the package's test.
//
//go:generate go test -run TestConfigurationDoc -update .

// Row is one documented variable: the declarations of the platform, the
// command line and every registered service make these rows, and from them
// docs/configuration.md, help, the unknown-variable warning and redaction.
type Row struct {
	Component, Vars, Default, Meaning string
	// Names are the variable and, for a secret, its NAME_FILE twin.
	Names  []string
	Secret bool
}

// Components of Rows, as docs/configuration.md titles them.
const (
	Platform = "Every process"
	CLI      = "agentk (command line)"
)

// CLISpec declares what the command line itself reads.
var CLISpec = config.Spec{Component: "agentk", Vars: []config.Decl{
	{Name: "AGENTK_APPROVER_TOKEN", Secret: true, Doc: "`approve`, `deny`, `freeze`, `unfreeze`: the approver's console token (`AGENTK_CONSOLE_TOKENS` on the bridge)"},
	{Name: "AGENTK_CONSOLE_URL", DocDefault: "`http://$AGENTK_BRIDGE_ADDR`", Doc: "`approve`, `deny`, `freeze`, `unfreeze`: the bridge's console and API"},
	{Name: "AGENTK_CONNECT_TIMEOUT", Kind: config.KindDuration, Default: "5s", Doc: "operator commands (`report`, `incidents`, `audit`, `shadow-report`, `decisions`, `freeze`, `unfreeze`, `approve`, `deny`): how long to wait for NATS or the bridge before failing with the address that did not answer; `--connect-timeout` overrides it"},
}}

// Rows returns every declared variable as a row, in doc order: the
// platform's, the command line's, then each registered service's.
func Rows() []Row {
	var rows []Row
	add := func(comp string, s config.Spec) {
		for _, d := range s.Vars {
			rows = append(rows, declRow(comp, d))
		}
	}
	add(Platform, config.Platform)
	add(CLI, CLISpec)
	for _, r := range service.Registered() {
		add(r.Role, r.Config)
	}
	return rows
}

// declRow documents d as one row of component comp.
func declRow(comp string, d config.Decl) Row {
	r := Row{Component: comp, Vars: "`" + d.Name + "`", Meaning: d.Doc, Names: []string{d.Name}, Secret: d.Secret}
	if d.HasFile() {
		r.Vars += " / `" + d.Name + "_FILE`"
		r.Names = append(r.Names, d.Name+"_FILE")
	}
	if d.Secret {
		r.Meaning += " (secret)"
	}
	switch {
	case d.DocDefault != "":
		r.Default = d.DocDefault
	case d.Default != "":
		r.Default = "`" + d.Default + "`"
	case d.Required:
		r.Default = "required"
	default:
		r.Default = "—"
	}
	return r
}

// declaredVar is what the declarations say of one variable name.
type declaredVar struct {
	known, secret bool
}

// Secret reports whether name is declared secret (a <NAME>_FILE is not: it
// holds a path, not the secret).
func Secret(name string) bool { return declared(name).secret }

// declared returns what the declarations say of name (a <NAME>_FILE is
// known when NAME is a secret, and holds a path, not the secret).
func declared(name string) declaredVar {
	var d declaredVar
	for _, r := range Rows() {
		if slices.Contains(r.Names, name) {
			d.known = true
			d.secret = d.secret || (r.Secret && name == r.Names[0])
		}
	}
	return d
}

// KnownNames returns every declared variable name.
func KnownNames() []string {
	var out []string
	for _, r := range Rows() {
		out = append(out, r.Names...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// testSwitch reports whether name is a switch of the test suite, documented
// with the tests rather than in the configuration tables.
func testSwitch(name string) bool {
	for _, p := range []string{"AGENTK_REQUIRE_", "AGENTK_EVAL_", "AGENTK_TEST_", "AGENTK_MUTANT"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// UnknownVars returns a warning for each AGENTK_ variable set in environ that
// no README declares, with the nearest declared name when it looks like a typo.
func UnknownVars(environ []string) []string {
	known := KnownNames()
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "AGENTK_") || testSwitch(name) || declared(name).known {
			continue
		}
		w := name + " is not a variable agentk reads (docs/configuration.md lists them)"
		if near, d := nearest(name, known); d <= max(2, len(name)/6) {
			w += fmt.Sprintf("; did you mean %s?", near)
		}
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// nearest returns the name in names closest to s by edit distance.
func nearest(s string, names []string) (string, int) {
	best, bestD := "", -1
	for _, n := range names {
		if d := editDistance(s, n); bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	return best, bestD
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// operatorEnv is what every operator command reads to reach the pipeline.
var operatorEnv = []string{"AGENTK_NATS_URL", "AGENTK_NATS_PORT", "AGENTK_DATA_DIR", "AGENTK_KEYS_DIR", "AGENTK_CONNECT_TIMEOUT"}

// commandEnv says which documented variables a command reads: whole
// components, or single names. Rows of the platform and command-line tables
// that name the command in backticks (`agentk provision`, `freeze`) are
// added to it.
var commandEnv = map[string][]string{
	"up":            {Platform, "ingester", "sandbox", "investigator", "reviewer", "gate", "bridge", "deployer"},
	"config":        {Platform, "ingester", "sandbox", "investigator", "reviewer", "gate", "bridge", "deployer"},
	"provision":     {"AGENTK_NATS_URL", "AGENTK_KEYS_DIR", "AGENTK_DATA_DIR"},
	"keys":          {"AGENTK_KEYS_DIR", "AGENTK_DATA_DIR"},
	"report":        operatorEnv,
	"incidents":     operatorEnv,
	"audit":         operatorEnv,
	"shadow-report": operatorEnv,
	"decisions":     operatorEnv,
	"deadletters":   operatorEnv,
	"freeze":        {"AGENTK_BRIDGE_ADDR", "AGENTK_CONNECT_TIMEOUT"},
	"unfreeze":      {"AGENTK_BRIDGE_ADDR", "AGENTK_CONNECT_TIMEOUT"},
	"approve":       {"AGENTK_BRIDGE_ADDR", "AGENTK_CONNECT_TIMEOUT"},
	"deny":          {"AGENTK_BRIDGE_ADDR", "AGENTK_CONNECT_TIMEOUT"},
}

// commandRows returns the documented rows command name reads.
func commandRows(name string) []Row {
	want := commandEnv[name]
	if slices.Contains(service.Roles(), name) {
		want = []string{Platform, name}
	}
	var out []Row
	for _, r := range Rows() {
		cli := r.Component == Platform || r.Component == CLI
		mentioned := cli && (strings.Contains(r.Meaning, "`"+name+"`") || strings.Contains(r.Meaning, "`agentk "+name+"`") ||
			(name != "up" && slices.Contains(service.Roles(), name) && strings.Contains(r.Meaning, "`agentk <service>`")))
		named := slices.ContainsFunc(r.Names, func(n string) bool { return slices.Contains(want, n) })
		// A whole component, except the platform's rows that name the
		// commands they are for (other than this one).
		whole := slices.Contains(want, r.Component) && (r.Component != Platform || !strings.Contains(r.Meaning, "`agentk ") || mentioned)
		if mentioned || named || whole {
			if !slices.ContainsFunc(out, func(o Row) bool { return o.Vars == r.Vars && o.Component == r.Component }) {
				out = append(out, r)
			}
		}
	}
	return out
}

// PrintCommand writes the "Environment" section of command name's usage.
func PrintCommand(w io.Writer, name string) {
	rows := commandRows(name)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nEnvironment (docs/configuration.md has every variable):")
	for _, r := range rows {
		def := ""
		if r.Default != "" && r.Default != "—" {
			def = " [default " + strings.ReplaceAll(r.Default, "`", "") + "]"
		}
		comp := ""
		if (name == "up" || name == "config") && r.Component != Platform && r.Component != CLI {
			comp = r.Component + ": "
		}
		fmt.Fprintf(w, "  %s%s\n      %s%s\n", strings.ReplaceAll(r.Vars, "`", ""), def, comp, strings.ReplaceAll(r.Meaning, "`", ""))
	}
}

// Redact hides declared secrets and credentials in URLs. A variable nothing
// declares is never shown, so its name is not judged.
func Redact(name, value string) string {
	if Secret(name) && value != "" {
		return config.Redacted
	}
	if i := strings.Index(value, "://"); i >= 0 {
		if at := strings.Index(value[i+3:], "@"); at >= 0 {
			return value[:i+3] + config.Redacted + "@" + value[i+3+at+1:]
		}
	}
	return value
}
