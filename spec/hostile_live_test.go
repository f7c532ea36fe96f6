//go:build unix

package spec

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/live/livetest"
)

// TestHostileLiveEnvironment: a recorded run whose environment sets loader
// or injection variables (LD_PRELOAD=/outside/evil.so loads that library's
// constructor into the engine; DYLD_INSERT_LIBRARIES is its macOS twin) is
// re-run without them, each reported as a finding naming it, and nothing of
// this process's environment beyond the allow-list reaches the engine. The
// fake engine writes the environment it was started with.
func TestHostileLiveEnvironment(t *testing.T) {
	dir, runs := fakeCheckout(t)
	lr := runs[0]
	hostile := *lr.run
	hostile.Env = map[string]string{"LD_PRELOAD": "/outside/evil.so", "DYLD_INSERT_LIBRARIES": "/outside/evil.dylib"}
	for k, v := range lr.run.Env {
		hostile.Env[k] = v
	}
	lr.run = &hostile
	t.Setenv("STRATA_TEST_SECRET", "SECRET-hunter2") // of this process, not on the allow-list

	rp := fakeReplay(0, lr)
	rp.WantEnv = maps.Clone(lr.run.Env) // the fake exits 97 naming a variable it was started without
	delete(rp.WantEnv, "LD_PRELOAD")
	delete(rp.WantEnv, "DYLD_INSERT_LIBRARIES")
	if len(rp.WantEnv) == 0 {
		t.Fatal("fixtures/m5's first run records no variable to pass")
	}
	rp.EnvFile = filepath.Join(t.TempDir(), "env")
	livetest.Use(t, rp)
	res, _, err := rerun(t, 1, 1, lr, liveConfig{dir: dir, timeout: 2 * time.Minute, minimum: time.Second, every: time.Second, tol: 0.15, pass: []string{livetest.EnvReplay}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.ExitCode != lr.run.ExitCode {
		t.Errorf("re-run exit %d; want %d (the fake says: %s)", res.Run.ExitCode, lr.run.ExitCode, strings.TrimSpace(res.Run.Tail[:min(len(res.Run.Tail), 200)]))
	}

	findings := strings.Join(envFindings(res), "\n")
	for _, name := range []string{"LD_PRELOAD", "DYLD_INSERT_LIBRARIES"} {
		if !strings.Contains(findings, "sets "+name+": a loader or injection variable") {
			t.Errorf("envFindings = %q; want a finding naming %s", findings, name)
		}
	}
	b, err := os.ReadFile(rp.EnvFile)
	if err != nil {
		t.Fatalf("the fake engine did not start: %v", err)
	}
	started := string(b)
	for _, never := range []string{"LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "evil", "hunter2"} {
		if strings.Contains(started, never) {
			t.Errorf("the engine was started with %q in its environment:\n%s", never, started)
		}
	}
	for k, v := range rp.WantEnv {
		if !strings.Contains(started, "\n"+k+"="+v+"\n") && !strings.HasPrefix(started, k+"="+v+"\n") {
			t.Errorf("the engine was started without the recorded %s=%s", k, v)
		}
	}
}
