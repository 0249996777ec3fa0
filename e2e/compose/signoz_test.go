package compose

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAlertRule checks deploy/signoz/alert-rule.json against the shape of
// SigNoz's PostableRule (v2alpha1) and against what the gate needs: the value
// in a burn_rate annotation and the service in a service.name label.
func TestAlertRule(t *testing.T) {
	t.Parallel()
	var rule struct {
		Alert, AlertType, RuleType, SchemaVersion, Version string
		Annotations                                        map[string]string
		Condition                                          struct {
			CompositeQuery struct {
				QueryType string
				Queries   []struct {
					Type string
					Spec struct {
						Name    string
						Signal  string
						GroupBy []struct{ Name string }
					}
				}
			}
			SelectedQueryName string
			Thresholds        struct {
				Kind string
				Spec []struct {
					Name, Op, MatchType string
					Target              *float64
					Channels            []string
				}
			}
		}
		Evaluation struct {
			Kind string
			Spec struct{ EvalWindow, Frequency string }
		}
		NotificationSettings struct{ GroupBy []string }
	}
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "deploy", "signoz", "alert-rule.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rule))

	require.NotEmpty(t, rule.Alert)
	require.Equal(t, "TRACES_BASED_ALERT", rule.AlertType)
	require.Equal(t, "threshold_rule", rule.RuleType)
	require.Equal(t, "v2alpha1", rule.SchemaVersion)
	require.Equal(t, "{{$value}}", rule.Annotations["burn_rate"], "the gate reads the burn rate from this annotation")
	require.Contains(t, rule.NotificationSettings.GroupBy, "service.name")

	names := map[string]string{}
	for _, q := range rule.Condition.CompositeQuery.Queries {
		names[q.Spec.Name] = q.Type
		if q.Type == "builder_query" {
			require.Equal(t, "traces", q.Spec.Signal)
			var by []string
			for _, g := range q.Spec.GroupBy {
				by = append(by, g.Name)
			}
			require.Contains(t, by, "service.name", "query %s must group by service.name: the alert's label", q.Spec.Name)
		}
	}
	require.Equal(t, "builder_formula", names[rule.Condition.SelectedQueryName], "the selected query is the burn-rate formula")

	ops := []string{"above", "below", "equal", "not_equal", "above_or_equal", "below_or_equal", "outside_bounds"}
	matches := []string{"at_least_once", "all_the_times", "on_average", "in_total", "last"}
	require.Equal(t, "basic", rule.Condition.Thresholds.Kind)
	require.NotEmpty(t, rule.Condition.Thresholds.Spec)
	for _, th := range rule.Condition.Thresholds.Spec {
		require.Contains(t, ops, th.Op)
		require.Contains(t, matches, th.MatchType)
		require.NotNil(t, th.Target)
		require.GreaterOrEqual(t, *th.Target, 1.0, "a threshold below burn rate 1 would page for a healthy budget")
		require.NotEmpty(t, th.Channels)
	}
	require.Equal(t, "rolling", rule.Evaluation.Kind)
	require.NotEmpty(t, rule.Evaluation.Spec.EvalWindow)
}

// TestDashboard checks deploy/signoz/dashboard.json: every widget is laid
// out, and every metric it reads is either emitted by agentk's code or listed
// as "not yet" in docs/deploy.md, so the dashboard and the docs cannot drift
// apart silently.
func TestDashboard(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	var dash struct {
		Title   string
		Version string
		Layout  []struct{ I string }
		Widgets []struct {
			ID, Title, PanelTypes string
			Query                 struct {
				Builder struct {
					QueryData []struct {
						DataSource   string
						Aggregations []struct{ MetricName string }
					}
				}
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "deploy", "signoz", "dashboard.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &dash))
	require.Equal(t, "v5", dash.Version)

	var laidOut, ids []string
	for _, l := range dash.Layout {
		laidOut = append(laidOut, l.I)
	}
	var metrics []string
	for _, w := range dash.Widgets {
		ids = append(ids, w.ID)
		for _, q := range w.Query.Builder.QueryData {
			for _, a := range q.Aggregations {
				if q.DataSource == "metrics" {
					require.NotEmpty(t, a.MetricName, "widget %q", w.Title)
					metrics = append(metrics, a.MetricName)
				}
			}
		}
	}
	require.ElementsMatch(t, ids, laidOut, "every widget has exactly one layout cell")

	src := goSource(t, root, "services")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "deploy.md"))
	require.NoError(t, err)
	for _, m := range slices.Compact(slices.Sorted(slices.Values(metrics))) {
		emitted := strings.Contains(src, `"`+m+`"`)
		notYet := docRow(string(doc), m, "**not yet**")
		require.True(t, emitted != notYet, "%s: emitted in code = %v, listed as not yet in docs/deploy.md = %v", m, emitted, notYet)
	}
}

// goSource concatenates the non-test Go files under dirs.
func goSource(t *testing.T, root string, dirs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			s, err := os.ReadFile(p)
			b.Write(s)
			return err
		})
		require.NoError(t, err)
	}
	return b.String()
}

// docRow reports whether a table row of doc names metric and contains mark.
func docRow(doc, metric, mark string) bool {
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "|") && strings.Contains(line, "`"+metric) && strings.Contains(line, mark) {
			return true
		}
	}
	return false
}
