package contracts

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
