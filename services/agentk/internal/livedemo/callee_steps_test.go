package livedemo

import (
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/require"
)

// TestComposeFileTwoServices: shop-api calls payment over the project's
// network; only shop-api is published, on loopback; both export OTLP.
func TestComposeFileTwoServices(t *testing.T) {
	t.Parallel()
	var doc struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
			DependsOn   []string          `yaml:"depends_on"`
		} `yaml:"services"`
		Networks map[string]struct {
			External bool   `yaml:"external"`
			Name     string `yaml:"name"`
		} `yaml:"networks"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(composeFile2("repo/shop-api:v1", "repo/payment:v2", "http://172.19.0.1:4318", "proj_net", 38277)), &doc))
	require.Len(t, doc.Services, 2)
	shop, pay := doc.Services[Service], doc.Services[Origin]
	require.Equal(t, "repo/shop-api:v1", shop.Image)
	require.Equal(t, "repo/payment:v2", pay.Image)
	require.Equal(t, "http://payment:8080", shop.Environment["CALLEE_URL"])
	require.Equal(t, Origin, shop.Environment["CALLEE_NAME"])
	require.Equal(t, []string{Origin}, shop.DependsOn)
	require.Equal(t, []string{"127.0.0.1:38277:8080"}, shop.Ports, "published on loopback only")
	require.Empty(t, pay.Ports, "payment is reached over the project's network only")
	require.Equal(t, Origin, pay.Environment["SERVICE_NAME"])
	require.Empty(t, shop.Environment["SERVICE_NAME"], "shop-api is the binary's default name")
	for _, s := range []string{Service, Origin} {
		require.Equal(t, "http://172.19.0.1:4318", doc.Services[s].Environment["OTEL_EXPORTER_OTLP_ENDPOINT"], s)
	}
	require.True(t, doc.Networks["default"].External)
	require.Equal(t, "proj_net", doc.Networks["default"].Name)
}
