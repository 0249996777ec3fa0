package corpusgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Files renders one scenario as the files of its incident folder.
func Files(sc Scenario) (map[string][]byte, error) {
	w := generate(sc)
	files := map[string][]byte{}
	files["incident.yaml"] = incidentYAML(sc)
	alert, err := alertJSON(sc)
	if err != nil {
		return nil, err
	}
	files["alert.json"] = alert
	var sb bytes.Buffer
	for _, s := range w.spans {
		b, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("corpusgen: %s: span: %w", sc.ID, err)
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	files["spans.jsonl"] = sb.Bytes()
	var lb bytes.Buffer
	for _, l := range w.logs {
		b, err := json.Marshal(l)
		if err != nil {
			return nil, fmt.Errorf("corpusgen: %s: log: %w", sc.ID, err)
		}
		lb.Write(b)
		lb.WriteByte('\n')
	}
	files["logs.jsonl"] = lb.Bytes()
	files["releases.yaml"] = releasesYAML(sc, w.services())
	return files, nil
}

// Write writes every scenario under dir/<id>/, replacing what is there.
func Write(dir string, scs []Scenario) error {
	for _, sc := range scs {
		files, err := Files(sc)
		if err != nil {
			return err
		}
		d := filepath.Join(dir, sc.ID)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(d, name), b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func incidentYAML(sc Scenario) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %s\n", sc.ID)
	fmt.Fprintf(&b, "title: %s\n", sc.Title)
	fmt.Fprintf(&b, "service: %s\n", sc.Service)
	fmt.Fprintf(&b, "now: %s\n", rfc(sc.Now))
	fmt.Fprintf(&b, "expect:\n  root_cause: %s\n  verdict: %s\n", sc.Class, sc.Verdict)
	if len(sc.FailedChecks) > 0 {
		fmt.Fprintf(&b, "  failed_checks: [%s]\n", strings.Join(sc.FailedChecks, ", "))
	} else {
		b.WriteString("  failed_checks: []\n")
	}
	fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(sc.Tags, ", "))
	if len(sc.SandboxServices) > 0 {
		fmt.Fprintf(&b, "sandbox_services: [%s]\n", strings.Join(sc.SandboxServices, ", "))
	}
	if len(sc.PriorActions) > 0 {
		b.WriteString("prior_actions:\n")
		for _, p := range sc.PriorActions {
			fmt.Fprintf(&b, "  - service: %s\n    at: %s\n", sc.Service, rfc(sc.Now.Add(-p)))
		}
	}
	return []byte(b.String())
}

func ruleID(sc Scenario) string {
	h := fnv.New32a()
	h.Write([]byte(sc.Service))
	return fmt.Sprintf("%d", 10+h.Sum32()%90)
}

func fingerprint(sc Scenario) string {
	h := fnv.New64a()
	h.Write([]byte(sc.ID))
	return fmt.Sprintf("%016x", h.Sum64())
}

// alertJSON is the webhook body as SigNoz's alertmanager posts it (version "4").
func alertJSON(sc Scenario) ([]byte, error) {
	rule := ruleID(sc)
	startsAt := sc.Now.Add(-1 * time.Minute)
	name := sc.Service + " error budget burn"
	labels := map[string]string{
		"alertname":      name,
		"ruleId":         rule,
		"ruleSource":     "http://localhost:8080/alerts/edit?ruleId=" + rule,
		"severity":       "critical",
		"service.name":   sc.Service,
		"threshold.name": "critical",
	}
	desc := fmt.Sprintf("The SLO error budget of %s is burning faster than allowed.", sc.Service)
	ann := map[string]string{
		"summary":     fmt.Sprintf("%s: error budget burn", sc.Service),
		"description": desc,
	}
	switch {
	case sc.BurnRateInText:
		ann["description"] = fmt.Sprintf("%s Current burn rate: %sx over 5m.", desc, sc.BurnRate)
	case sc.BurnRate != "":
		ann["burn_rate"] = sc.BurnRate
		ann["value"] = sc.BurnRate
		ann["threshold"] = "1"
	}
	from, to := startsAt.Add(-15*time.Minute).UnixMilli(), startsAt.Add(5*time.Minute).UnixMilli()
	ann["related_traces"] = fmt.Sprintf("http://localhost:8080/traces-explorer?startTime=%d&endTime=%d", from, to)
	ann["related_logs"] = fmt.Sprintf("http://localhost:8080/logs/logs-explorer?startTime=%d&endTime=%d", from, to)
	alert := map[string]any{
		"status":       "firing",
		"labels":       labels,
		"annotations":  ann,
		"startsAt":     startsAt.Format(time.RFC3339Nano),
		"endsAt":       "0001-01-01T00:00:00Z",
		"generatorURL": "http://localhost:8080/alerts/edit?ruleId=" + rule,
		"fingerprint":  fingerprint(sc),
	}
	body := map[string]any{
		"receiver":          "agentk",
		"status":            "firing",
		"alerts":            []any{alert},
		"groupLabels":       map[string]string{"alertname": name},
		"commonLabels":      labels,
		"commonAnnotations": ann,
		"externalURL":       "http://localhost:8080",
		"version":           "4",
		"groupKey":          fmt.Sprintf("{}/{ruleId=\"%s\"}:{alertname=\"%s\"}", rule, name),
		"truncatedAlerts":   0,
	}
	b, err := json.MarshalIndent(body, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("corpusgen: %s: alert: %w", sc.ID, err)
	}
	return append(b, '\n'), nil
}

func releasesYAML(sc Scenario, services []string) []byte {
	var b strings.Builder
	b.WriteString("project: shop\nservices:\n")
	for _, svc := range services {
		fmt.Fprintf(&b, "  %s:\n", svc)
		for _, r := range releasesOf(sc, svc) {
			fmt.Fprintf(&b, "    - version: %s\n      image: %s\n      deployed_at: %s\n", r.version, r.image, rfc(r.at))
		}
	}
	return []byte(b.String())
}
