package contracts

import (
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/goccy/go-yaml"
)

// ClassUnknown is the class of a claim that names nothing conclusive.
const ClassUnknown = "unknown"

// FailureClass is one entry of the failure catalogue. The catalogue is
// configuration; DefaultCatalogue is what ships.
type FailureClass struct {
	Name            string `json:"name" yaml:"name"`
	Description     string `json:"description" yaml:"description"`
	DeploymentClass bool   `json:"deployment_class" yaml:"deployment_class"`
}

// DefaultCatalogue returns the catalogue of INCIDENT-FORMAT.md.
func DefaultCatalogue() []FailureClass {
	return []FailureClass{
		{"prompt_regression", "a release changed a prompt or template; answers degrade, often still HTTP 200, quality/guardrail attributes flip", true},
		{"retry_storm", "a release changed timeouts or retries; retry counts and upstream call volume explode", true},
		{"bad_release", "a release introduced errors (5xx, panics) on some endpoints", true},
		{"config_regression", "a configuration change shipped as a release breaks a feature", true},
		{"retrieval_latency", "a dependency (vector store, search) slowed down; one child span dominates latency", false},
		{"db_pool_exhaustion", "connection checkout timeouts, pool-exhausted errors in logs and spans", false},
		{"dependency_outage", "an upstream or third-party API fails or refuses connections", false},
		{"resource_saturation", "CPU or memory pressure, GC pauses, OOM restarts", false},
		{"traffic_surge", "request rate far above normal, latency rises across all endpoints evenly", false},
		{ClassUnknown, "nothing conclusive", false},
	}
}

var className = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ErrCatalogue is returned for a catalogue that cannot be used.
var ErrCatalogue = errors.New("contracts: catalogue")

// LoadCatalogue reads a YAML catalogue file (see ParseCatalogue).
func LoadCatalogue(path string) ([]FailureClass, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCatalogue, err)
	}
	return ParseCatalogue(b)
}

// ParseCatalogue decodes and validates a YAML catalogue: a list of {name,
// description, deployment_class}, or the same list under a top-level
// "classes" key. Every problem is reported at once, each wrapping ErrCatalogue.
func ParseCatalogue(b []byte) ([]FailureClass, error) {
	var cat []FailureClass
	if err := yaml.UnmarshalWithOptions(b, &cat, yaml.Strict()); err != nil {
		var doc struct {
			Classes []FailureClass `yaml:"classes"`
		}
		if err2 := yaml.UnmarshalWithOptions(b, &doc, yaml.Strict()); err2 != nil {
			return nil, fmt.Errorf("%w: %w", ErrCatalogue, err)
		}
		cat = doc.Classes
	}
	if len(cat) == 0 {
		return nil, fmt.Errorf("%w: no classes", ErrCatalogue)
	}
	var errs []error
	seen := map[string]bool{}
	for i, c := range cat {
		switch {
		case !className.MatchString(c.Name):
			errs = append(errs, fmt.Errorf("%w: class %d: name %q must be lower_snake_case", ErrCatalogue, i+1, c.Name))
		case seen[c.Name]:
			errs = append(errs, fmt.Errorf("%w: class %q listed twice", ErrCatalogue, c.Name))
		case c.Name == ClassUnknown && c.DeploymentClass:
			errs = append(errs, fmt.Errorf("%w: class %q can never be deployment-class", ErrCatalogue, c.Name))
		}
		seen[c.Name] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return cat, nil
}
