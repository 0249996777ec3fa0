package livedemo

// images_test.go: the demo target's images the live tests run, built once
// for the package's test binary (issue 36: each test built its own, five
// builds of one binary, and the two tests ran one after the other).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"agentk/platform/deadline"
	"agentk/services/deployer/demotarget"
)

// images is the live tests' one build: base is the fresh repository prefix
// (agentk-demolive-test-<nanos>), tags what was built under it.
var images struct {
	once sync.Once
	base string
	tags []string
	err  error
}

// testImages builds, the first time a test calls it, the images both live
// demos run and returns shop-api's and payment's repositories: shop-api v1
// with the title label the two-service demo gives its caller (the
// one-service demo's v1 too: it reads the tag, not the label) and v2,
// payment v1 and v2 with theirs. The build takes what the machine takes:
// it is bounded by the calling test's deadline less a minute, and each
// demo's own timeout starts once the images are there. TestMain removes
// them.
func testImages(t *testing.T) (repo, callee string) {
	t.Helper()
	images.once.Do(func() {
		images.base = fmt.Sprintf("agentk-demolive-test-%d", time.Now().UnixNano())
		ctx, cancel := deadline.Context(context.Background(), t, time.Minute)
		defer cancel()
		shop, pay := images.base+"/shop-api", images.base+"/payment"
		titled := func(img demotarget.Image, repo string) demotarget.Image {
			img.Labels = map[string]string{imageTitleLabel: repo}
			return img
		}
		for _, img := range []demotarget.Image{titled(demotarget.V1(shop), shop), demotarget.V2(shop),
			titled(demotarget.V1(pay), pay), titled(demotarget.V2(pay), pay)} {
			start := time.Now()
			if _, images.err = demotarget.Build(ctx, img); images.err != nil {
				return
			}
			images.tags = append(images.tags, img.Tag)
			t.Logf("built %s in %s", img.Tag, time.Since(start).Round(100*time.Millisecond))
		}
	})
	if images.err != nil {
		t.Fatalf("the demo's images: %v", images.err)
	}
	return images.base + "/shop-api", images.base + "/payment"
}

func TestMain(m *testing.M) {
	code := m.Run()
	if len(images.tags) > 0 {
		_ = exec.Command("docker", append([]string{"rmi", "-f"}, images.tags...)...).Run()
	}
	os.Exit(code)
}
