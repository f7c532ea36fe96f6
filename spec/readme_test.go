package spec

import (
	"os"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit"
)

// TestREADMEListsRules keeps the README's rule table in step with the
// registry: a rule added, renamed or removed without a note fails here.
func TestREADMEListsRules(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	names := audit.Names()
	if len(names) == 0 {
		t.Fatal("audit.Names() is empty: no rule registered")
	}
	for _, name := range names {
		if !strings.Contains(readme, "| `"+name+"` |") {
			t.Errorf("README.md's rule table lacks a row for rule %q", name)
		}
	}
}

// TestCIRunsREADMECommand checks that CI runs the test command the README's
// quick start gives.
func TestCIRunsREADMECommand(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"go run ./tools/strataspec", "make test"} {
		if !strings.Contains(string(readme), "    "+cmd) {
			t.Errorf("README.md's quick start lacks %q", cmd)
		}
	}
	if !strings.Contains(string(ci), "\nmake test\n") {
		t.Errorf(".ci/run does not run the README's test command %q", "make test")
	}
}
