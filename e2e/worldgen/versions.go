package worldgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// markerStyles is how many ways a world writes its deployment markers:
//
//	0 deployment.version only
//	1 plus deployment.previous_version and deployment.id
//	2 build numbers written as JSON numbers
//	3 plus deployment.environment.name, deployment.name and vcs.ref.head.revision
//	4 minimal attributes, service.version on the marker's resource, kind unspecified
const markerStyles = 5

// versionPair draws the running version and the one that replaces it, in a
// spelling that suits the marker style.
func versionPair(r *rand.Rand, style int) (old, cur string) {
	switch {
	case style == 2:
		n := 200 + r.IntN(4000)
		return strconv.Itoa(n), strconv.Itoa(n + 1 + r.IntN(3))
	case r.Float64() < 0.4:
		maj, mi := 1+r.IntN(4), r.IntN(30)
		return fmt.Sprintf("%d.%d.%d", maj, mi, r.IntN(9)), fmt.Sprintf("%d.%d.0", maj, mi+1)
	case r.Float64() < 0.5:
		return fmt.Sprintf("sha-%07x", r.Uint32()>>4), fmt.Sprintf("sha-%07x", r.Uint32()>>4)
	default:
		n := 2 + r.IntN(40)
		return fmt.Sprintf("v%d", n), fmt.Sprintf("v%d", n+1)
	}
}

// olderVersion derives a plausible predecessor of v for the release history.
func olderVersion(v string) string {
	switch {
	case strings.HasPrefix(v, "sha-"):
		b := []byte(v)
		for i := 4; i < len(b); i++ {
			b[i] = "0123456789abcdef"[(strings.IndexByte("0123456789abcdef", b[i])+7)%16]
		}
		return string(b)
	case strings.HasPrefix(v, "v"):
		n, _ := strconv.Atoi(v[1:])
		return "v" + strconv.Itoa(max(n-1, 0))
	case strings.Count(v, ".") == 2:
		p := strings.Split(v, ".")
		mi, _ := strconv.Atoi(p[1])
		if mi == 0 {
			return p[0] + ".0.0-rc1"
		}
		return p[0] + "." + strconv.Itoa(mi-1) + ".4"
	default:
		n, _ := strconv.Atoi(v)
		return strconv.Itoa(max(n-5, 1))
	}
}
