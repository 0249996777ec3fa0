package incident

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"agentk/contracts"
)

// File names of the format.
const (
	FileIncident = "incident.yaml"
	FileAlert    = "alert.json"
	FileSpans    = "spans.jsonl"
	FileLogs     = "logs.jsonl"
	FileReleases = "releases.yaml"
)

// Verdicts an incident may expect.
var verdicts = []string{contracts.VerdictAllow, contracts.VerdictDeny}

// checks are the gate check names failed_checks may list.
var checks = []string{
	contracts.CheckSLOBreach, contracts.CheckAllowlist, contracts.CheckCooldown,
	contracts.CheckConfidence, contracts.CheckDeploymentRelated, contracts.CheckSandboxScope,
}

// Load reads and validates the incident folder dir against the default
// catalogue. It returns an *Error (wrapping ErrInvalid) listing every problem
// found, each naming its file, line and field.
func Load(dir string) (*Incident, error) {
	return LoadWithCatalogue(dir, contracts.DefaultCatalogue())
}

// LoadWithCatalogue is Load with a configured failure catalogue.
func LoadWithCatalogue(dir string, catalogue []contracts.FailureClass) (*Incident, error) {
	return load(dir, catalogue, telemetryRead)
}

// LoadManifest reads and validates everything of the folder dir but its
// telemetry: incident.yaml, alert.json and releases.yaml. Spans and Logs are
// left empty. It is for readers that need only what was deployed and
// expected (the dry-run deployer's seed): parsing spans.jsonl costs a
// replay more than the rest of its run.
func LoadManifest(dir string) (*Incident, error) {
	return load(dir, contracts.DefaultCatalogue(), telemetrySkip)
}

// LoadDeferred is Load with the telemetry read later: it reads and
// validates incident.yaml, alert.json, rule.json and releases.yaml as Load
// does, and checks that the telemetry files are there as Load would (spans
// present, neither file in both forms, a gzip form with a gzip header), but
// reads no line of them. Spans and Logs stay nil; Deferred reports true and
// WithTelemetry reads them, reporting a broken line as Load would. It is
// for a reader that holds many incidents and needs the telemetry of a few
// at a time (`agentk eval`, LoadCorpusDeferred): parsed, the telemetry is
// most of an incident's memory.
func LoadDeferred(dir string) (*Incident, error) {
	return load(dir, contracts.DefaultCatalogue(), telemetryDefer)
}

// telemetryMode is what load does with a folder's spans and logs.
type telemetryMode int

const (
	telemetrySkip  telemetryMode = iota // LoadManifest: not looked at
	telemetryRead                       // Load: read and validated
	telemetryDefer                      // LoadDeferred: found, read by WithTelemetry
)

// Deferred reports whether inc was loaded without its telemetry, to be read
// by WithTelemetry (LoadDeferred, LoadCorpusDeferred).
func (inc *Incident) Deferred() bool { return inc.deferred }

// WithTelemetry returns inc with its telemetry: inc itself unless Deferred,
// else a copy of inc whose Spans and Logs are read from inc.Dir now and
// validated as Load validates them, or an *Error (wrapping ErrInvalid)
// naming the folder and each problem's file, line and field. inc is left as
// it is, so its telemetry is held only as long as the copy is.
func (inc *Incident) WithTelemetry() (*Incident, error) {
	if !inc.deferred {
		return inc, nil
	}
	ps := &problems{}
	full := *inc
	full.deferred = false
	full.Spans, full.Logs = readTelemetry(inc.Dir, ps)
	if len(ps.list) > 0 {
		return nil, &Error{Dir: inc.Dir, Problems: ps.list, Truncated: ps.truncated}
	}
	return &full, nil
}

// readTelemetry reads and validates the spans and logs of the folder dir.
func readTelemetry(dir string, ps *problems) ([]Span, []Log) {
	return loadRows(dir, FileSpans, true, ps, parseSpanLine), loadRows(dir, FileLogs, false, ps, parseLogLine)
}

func load(dir string, catalogue []contracts.FailureClass, telemetry telemetryMode) (*Incident, error) {
	ps := &problems{}
	inc := &Incident{Dir: dir}
	read := func(name string, required bool) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case err == nil:
			return b
		case errors.Is(err, fs.ErrNotExist) && !required:
			return nil
		case errors.Is(err, fs.ErrNotExist):
			ps.addf(name, 0, "", "required file missing")
		default:
			ps.addf(name, 0, "", "unreadable: %v", err)
		}
		return nil
	}
	var metaDoc *yamlDoc
	if b := read(FileIncident, true); b != nil {
		m, d, ok := parseMetaDoc(b, filepath.Base(filepath.Clean(dir)), catalogue, ps)
		if ok {
			inc.Meta, metaDoc = m, d
		}
	}
	if b := read(FileAlert, true); b != nil {
		checkAlert(b, ps)
		inc.AlertJSON = b
	}
	if b := read(FileRule, false); b != nil {
		var ids []string
		if inc.AlertJSON != nil {
			ids = alertRuleIDs(inc.AlertJSON)
		}
		checkRule(b, ids, ps)
		inc.RuleJSON = b
	}
	switch telemetry {
	case telemetryRead:
		inc.Spans, inc.Logs = readTelemetry(dir, ps)
	case telemetryDefer:
		for _, f := range []struct {
			name     string
			required bool
		}{{FileSpans, true}, {FileLogs, false}} {
			if r, _ := openRows(dir, f.name, f.required, ps); r != nil {
				_ = r.Close()
			}
		}
		inc.deferred = true
	}
	if b := read(FileReleases, true); b != nil {
		if r, ok := parseReleases(b, ps); ok {
			inc.Releases = r
			if metaDoc != nil {
				checkCulpritService(metaDoc, inc.Meta.Expect.Culprit, r)
			}
		}
	}
	if len(ps.list) > 0 {
		return nil, &Error{Dir: dir, Problems: ps.list, Truncated: ps.truncated}
	}
	return inc, nil
}

// LoadCorpus loads every incident folder directly under dir, sorted by name.
// Folders whose names start with "." or "_" are skipped. It returns every
// folder's problems at once.
func LoadCorpus(dir string) ([]*Incident, error) {
	return loadCorpus(dir, Load)
}

// LoadCorpusDeferred is LoadCorpus with each incident loaded by
// LoadDeferred: its telemetry is read by WithTelemetry when it is needed,
// so a corpus held whole costs its manifests, not its recordings. A
// problem of a telemetry file's lines is reported then, not here.
func LoadCorpusDeferred(dir string) ([]*Incident, error) {
	return loadCorpus(dir, LoadDeferred)
}

func loadCorpus(dir string, loadOne func(string) (*Incident, error)) ([]*Incident, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("incident: corpus %s: %w", dir, err)
	}
	var out []*Incident
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") {
			continue
		}
		inc, err := loadOne(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, inc)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: corpus %s holds no incident folders", ErrInvalid, dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Meta.ID < out[j].Meta.ID })
	return out, nil
}

type rawMeta struct {
	ID      string `yaml:"id"`
	Title   string `yaml:"title"`
	Service string `yaml:"service"`
	Now     string `yaml:"now"`
	Expect  struct {
		RootCause    string   `yaml:"root_cause"`
		Verdict      string   `yaml:"verdict"`
		FailedChecks []string `yaml:"failed_checks"`
		Culprit      *struct {
			Service string `yaml:"service"`
			Verdict string `yaml:"verdict"`
		} `yaml:"culprit"`
	} `yaml:"expect"`
	Tags            []string `yaml:"tags"`
	SandboxServices []string `yaml:"sandbox_services"`
	PriorActions    []struct {
		Service string `yaml:"service"`
		At      string `yaml:"at"`
	} `yaml:"prior_actions"`
}

// parseMeta decodes and validates incident.yaml; folder is the folder name
// the id must equal.
func parseMeta(b []byte, folder string, catalogue []contracts.FailureClass, ps *problems) (Meta, bool) {
	m, _, ok := parseMetaDoc(b, folder, catalogue, ps)
	return m, ok
}

// parseMetaDoc is parseMeta that also returns the parsed document, for the
// checks that need releases.yaml too (checkCulpritService).
func parseMetaDoc(b []byte, folder string, catalogue []contracts.FailureClass, ps *problems) (Meta, *yamlDoc, bool) {
	var r rawMeta
	d, ok := decodeYAML(FileIncident, b, &r, ps)
	if !ok {
		return Meta{}, nil, false
	}
	before := len(ps.list)
	m := Meta{ID: r.ID, Title: r.Title, Service: r.Service, Tags: r.Tags, SandboxServices: r.SandboxServices}
	if d.required(r.ID, "id", "id") && r.ID != folder {
		d.fail("id", []any{"id"}, "%q does not equal the folder name %q", r.ID, folder)
	}
	d.required(r.Service, "service", "service")
	m.Now = d.time(r.Now, "now", "now")
	m.Expect = Expect{RootCause: r.Expect.RootCause, Verdict: r.Expect.Verdict, FailedChecks: r.Expect.FailedChecks}
	if d.required(r.Expect.RootCause, "expect.root_cause", "expect", "root_cause") {
		known := slices.ContainsFunc(catalogue, func(c contracts.FailureClass) bool { return c.Name == r.Expect.RootCause })
		if !known && r.Expect.RootCause != contracts.ClassUnknown {
			d.fail("expect.root_cause", []any{"expect", "root_cause"}, "%q is not in the catalogue (or unknown)", r.Expect.RootCause)
		}
	}
	if d.required(r.Expect.Verdict, "expect.verdict", "expect", "verdict") && !slices.Contains(verdicts, r.Expect.Verdict) {
		d.fail("expect.verdict", []any{"expect", "verdict"}, "%q is not allow or deny", r.Expect.Verdict)
	}
	for i, c := range r.Expect.FailedChecks {
		if !slices.Contains(checks, c) {
			d.fail(fmt.Sprintf("expect.failed_checks[%d]", i), []any{"expect", "failed_checks", i}, "%q is not a gate check (%s)", c, strings.Join(checks, ", "))
		}
	}
	if r.Expect.Verdict == contracts.VerdictAllow && len(r.Expect.FailedChecks) > 0 {
		d.fail("expect.failed_checks", []any{"expect", "failed_checks"}, "must be empty when verdict is allow")
	}
	if c := r.Expect.Culprit; c != nil {
		m.Expect.Culprit = parseCulprit(d, c.Service, c.Verdict)
	}
	for i, s := range r.SandboxServices {
		d.required(s, fmt.Sprintf("sandbox_services[%d]", i), "sandbox_services", i)
	}
	for i, a := range r.PriorActions {
		f := fmt.Sprintf("prior_actions[%d]", i)
		d.required(a.Service, f+".service", "prior_actions", i, "service")
		at := d.time(a.At, f+".at", "prior_actions", i, "at")
		if !at.IsZero() && !m.Now.IsZero() && at.After(m.Now) {
			d.fail(f+".at", []any{"prior_actions", i, "at"}, "after now (%s)", m.Now.Format("2006-01-02T15:04:05Z07:00"))
		}
		m.PriorActions = append(m.PriorActions, PriorAction{Service: a.Service, At: at})
	}
	return m, d, len(ps.list) == before
}

// parseCulprit validates expect.culprit's own fields: a service (checked
// against releases.yaml by checkCulpritService) and a verdict.
func parseCulprit(d *yamlDoc, service, verdict string) *Culprit {
	d.required(service, "expect.culprit.service", "expect", "culprit", "service")
	if d.required(verdict, "expect.culprit.verdict", "expect", "culprit", "verdict") && !slices.Contains(verdicts, verdict) {
		d.fail("expect.culprit.verdict", []any{"expect", "culprit", "verdict"}, "%q is not allow or deny", verdict)
	}
	return &Culprit{Service: service, Verdict: verdict}
}

// checkCulpritService checks that expect.culprit names a service of
// releases.yaml: a culprit is a service whose release can be rolled back.
func checkCulpritService(d *yamlDoc, c *Culprit, r Releases) {
	if c == nil || c.Service == "" {
		return
	}
	if _, ok := r.Services[c.Service]; !ok {
		d.fail("expect.culprit.service", []any{"expect", "culprit", "service"},
			"%q is not a service of %s (%s)", c.Service, FileReleases, strings.Join(r.ServiceNames(), ", "))
	}
}

type rawReleases struct {
	Project  string `yaml:"project"`
	Services map[string][]struct {
		Version    string `yaml:"version"`
		Image      string `yaml:"image"`
		DeployedAt string `yaml:"deployed_at"`
	} `yaml:"services"`
}

// parseReleases decodes releases.yaml: each service's releases oldest first.
func parseReleases(b []byte, ps *problems) (Releases, bool) {
	var r rawReleases
	d, ok := decodeYAML(FileReleases, b, &r, ps)
	if !ok {
		return Releases{}, false
	}
	before := len(ps.list)
	out := Releases{Project: r.Project, Services: map[string][]ReleaseEntry{}}
	d.required(r.Project, "project", "project")
	if len(r.Services) == 0 {
		d.fail("services", []any{"services"}, "required: at least one service")
	}
	names := make([]string, 0, len(r.Services))
	for name := range r.Services {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		list := r.Services[name]
		if len(list) == 0 {
			d.fail("services."+name, []any{"services", name}, "no releases")
		}
		for i, e := range list {
			f := fmt.Sprintf("services.%s[%d]", name, i)
			d.required(e.Version, f+".version", "services", name, i, "version")
			d.required(e.Image, f+".image", "services", name, i, "image")
			at := d.time(e.DeployedAt, f+".deployed_at", "services", name, i, "deployed_at")
			if i > 0 {
				prev := out.Services[name][i-1].DeployedAt
				if !at.IsZero() && !prev.IsZero() && at.Before(prev) {
					d.fail(f+".deployed_at", []any{"services", name, i, "deployed_at"}, "earlier than the release before it: releases are oldest first")
				}
			}
			out.Services[name] = append(out.Services[name], ReleaseEntry{Version: e.Version, Image: e.Image, DeployedAt: at})
		}
	}
	return out, len(ps.list) == before
}

// loadRows streams the telemetry file name of dir, plain or gzip-compressed
// (OpenTelemetry), through parseRows; the problems name the file read
// (spans.jsonl.gz:12 for the gzip form, its lines counted decompressed).
func loadRows[T any](dir, name string, required bool, ps *problems, parse func([]byte) (T, []fieldError)) []T {
	r, file := openRows(dir, name, required, ps)
	if r == nil {
		return nil
	}
	defer r.Close()
	return parseRows(r, file, ps, parse)
}

// openRows opens the telemetry file name of dir with OpenTelemetry,
// recording why it cannot (nil) unless it is missing and not required.
func openRows(dir, name string, required bool, ps *problems) (io.ReadCloser, string) {
	r, file, err := OpenTelemetry(dir, name)
	switch {
	case err == nil:
		return r, file
	case errors.Is(err, fs.ErrNotExist) && !required:
	case errors.Is(err, fs.ErrNotExist):
		ps.addf(name, 0, "", "required file missing")
	case errors.Is(err, ErrTwoForms):
		ps.addf(name, 0, "", "both %s and %s%s are present: keep one", name, name, GzipSuffix)
	default: // a gzip form that is not gzip among them (ErrCorruptGzip)
		ps.addf(file, 0, "", "unreadable: %v", err)
	}
	return nil, file
}

// parseRows reads file's JSON lines from r with parse, one row a line,
// recording every field problem with its line; a line with a problem is left
// out. Spans and logs are read through it.
func parseRows[T any](r io.Reader, file string, ps *problems, parse func([]byte) (T, []fieldError)) []T {
	var out []T
	readJSONL(r, file, ps, func(line []byte, n int) {
		row, errs := parse(line)
		for _, e := range errs {
			ps.add(Problem{File: file, Line: n, Field: e.Field, Msg: e.Msg})
		}
		if len(errs) == 0 {
			out = append(out, row)
		}
	})
	return out
}

// checkAlert checks that alert.json is an Alertmanager-format body with at
// least one alert. The ingester's parser is the judge of the rest.
func checkAlert(b []byte, ps *problems) {
	var body struct {
		Alerts []json.RawMessage `json:"alerts"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		line := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line = lineAt(b, se.Offset)
		case errors.As(err, &te):
			line = lineAt(b, te.Offset)
			if te.Field != "" {
				ps.addf(FileAlert, line, te.Field, "not %s", te.Type)
				return
			}
		}
		ps.addf(FileAlert, line, "", "not a JSON object: %v", err)
		return
	}
	if len(body.Alerts) == 0 {
		ps.addf(FileAlert, 0, "alerts", "required: at least one alert")
	}
}

func lineAt(b []byte, offset int64) int {
	if offset > int64(len(b)) {
		offset = int64(len(b))
	}
	return bytes.Count(b[:offset], []byte("\n")) + 1
}
