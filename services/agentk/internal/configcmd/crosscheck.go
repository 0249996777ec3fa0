package configcmd

import (
	"fmt"
	"strings"

	"agentk/services/reviewer"
	"agentk/services/sandbox"
)

// linkBases are the services that build or check links to SigNoz, each with
// the base it would use. They must agree: the reviewer drops every claim
// whose link is not under its base, so a sandbox building links under
// another one makes every rollback deny (issue 19).
var linkBases = []struct {
	role string
	base func(func(string) string) (string, error)
}{
	{"sandbox", sandbox.LinkBase},
	{"reviewer", reviewer.LinkBase},
}

// roleValue is one service's value of a setting that must agree.
type roleValue struct{ role, value string }

// disagreement returns an error naming every value when the services'
// values of setting differ, nil when they agree. Services whose value is
// unknown (their configuration is invalid, reported on its own) are left out.
func disagreement(setting string, vals []roleValue) error {
	var seen []roleValue
	differ := false
	for _, v := range vals {
		if v.value == "" {
			continue
		}
		if len(seen) > 0 && v.value != seen[0].value {
			differ = true
		}
		seen = append(seen, v)
	}
	if !differ {
		return nil
	}
	parts := make([]string, len(seen))
	for i, v := range seen {
		parts[i] = fmt.Sprintf("%s uses %s", v.role, v.value)
	}
	return fmt.Errorf("%s disagree: %s", setting, strings.Join(parts, ", "))
}

// checkLinkBases is the cross-check `agentk config` runs over linkBases.
func checkLinkBases(getenv func(string) string) error {
	var vals []roleValue
	for _, lb := range linkBases {
		b, _ := lb.base(getenv)
		vals = append(vals, roleValue{lb.role, b})
	}
	return disagreement("SigNoz link bases (AGENTK_SIGNOZ_BASE_URL, else AGENTK_SIGNOZ_URL)", vals)
}
