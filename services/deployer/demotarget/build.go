// Package demotarget builds the demo target's images: agentk-demo/shop-api:v1
// (healthy) and :v2 (a bad release), FROM scratch around a static binary built
// on this host, so nothing is pulled. Tests and the demo use Build.
package demotarget

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrBuild wraps every build failure.
var ErrBuild = errors.New("demotarget: build")

// VersionLabel is the image label carrying the baked-in version.
const VersionLabel = "org.opencontainers.image.version"

// Image is one version of the demo target to build.
type Image struct {
	Tag     string
	Version string
	// ReleaseFault is baked in: "bad_release" fails half of /ask, "" is healthy.
	ReleaseFault string
	// Labels are extra image labels (a test run's cleanup label).
	Labels map[string]string
}

// V1 and V2 are the demo's healthy and broken releases under repo.
func V1(repo string) Image { return Image{Tag: repo + ":v1", Version: "v1"} }

// V2 is V1's successor, with a bad release baked in.
func V2(repo string) Image {
	return Image{Tag: repo + ":v2", Version: "v2", ReleaseFault: "bad_release"}
}

// Dir is the demotarget source directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Build compiles the binary for linux/GOARCH with the version and fault baked
// in and runs `docker build --pull=false`. It returns the image id.
func Build(ctx context.Context, img Image) (string, error) {
	tmp, err := os.MkdirTemp("", "demotarget-")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBuild, err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	df, err := os.ReadFile(filepath.Join(Dir(), "Dockerfile"))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBuild, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "Dockerfile"), df, 0o644); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBuild, err)
	}
	gob := exec.CommandContext(ctx, "go", "build", "-trimpath",
		"-ldflags", fmt.Sprintf("-s -w -X main.version=%s -X main.releaseFault=%s", img.Version, img.ReleaseFault),
		"-o", filepath.Join(tmp, "demo-target"), "./cmd/demo-target")
	gob.Dir = Dir()
	gob.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := gob.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: go build %s: %w: %s", ErrBuild, img.Tag, err, out)
	}
	args := []string{"build", "--pull=false", "-q", "-t", img.Tag, "--label", VersionLabel + "=" + img.Version}
	for k, v := range img.Labels {
		args = append(args, "--label", k+"="+v)
	}
	var out, errb bytes.Buffer
	db := exec.CommandContext(ctx, "docker", append(args, tmp)...)
	db.Stdout, db.Stderr = &out, &errb
	if err := db.Run(); err != nil {
		return "", fmt.Errorf("%w: docker build %s: %w: %s", ErrBuild, img.Tag, err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}
