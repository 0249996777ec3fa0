package replay

import (
	"os"
	"path/filepath"

	"agentk/contracts/incident"

	"github.com/goccy/go-yaml"
)

// expectCulprit is the service whose release broke the incident when it is
// not the alerted one: incident.yaml's expect.culprit.service (issue 33),
// "" when the incident names none. It reads the file itself, tolerantly, so
// that the personas told the truth learn the culprit whether or not the
// incident loader carries the field yet; a file it cannot read names none
// (incident.Load already refused a malformed one).
func expectCulprit(inc *incident.Incident) string {
	b, err := os.ReadFile(filepath.Join(inc.Dir, incident.FileIncident))
	if err != nil {
		return ""
	}
	var meta struct {
		Expect struct {
			Culprit struct {
				Service string `yaml:"service"`
			} `yaml:"culprit"`
		} `yaml:"expect"`
	}
	if yaml.Unmarshal(b, &meta) != nil {
		return ""
	}
	return meta.Expect.Culprit.Service
}
