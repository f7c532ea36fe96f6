package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestHelpAndVersion: -h shows examples and the exit codes and exits 0;
// -version prints the version.
func TestHelpAndVersion(t *testing.T) {
	code, out, errs := runAudit(t, "-h")
	if code != 0 || !strings.Contains(errs, "examples:\n") || !strings.Contains(errs, "exit codes:\n  0  no fail finding") || !strings.Contains(errs, "-format github") {
		t.Errorf("-h = exit %d, stdout %q, stderr:\n%s\nwant exit 0 with examples and exit codes", code, out, errs)
	}
	code, out, _ = runAudit(t, "-version")
	if code != 0 || out != "strataspec "+toolVersion()+"\n" {
		t.Errorf("-version = exit %d, %q; want 0, %q", code, out, "strataspec "+toolVersion()+"\n")
	}
}

// TestSuggestJSON: -suggest -format json is one JSON object holding what
// the text form prints: as many quotes, as many unique rows, the same rows.
func TestSuggestJSON(t *testing.T) {
	root := fixtures + "/m5-v3"
	code, text, errs := runAudit(t, "-root", root, "-suggest")
	if code != 0 {
		t.Fatalf("-suggest = %d: %s", code, errs)
	}
	code, js, errs := runAudit(t, "-root", root, "-suggest", "-format", "json")
	if code != 0 {
		t.Fatalf("-suggest -format json = %d: %s", code, errs)
	}
	var doc struct {
		Suggestions []struct {
			Quote  string
			Unique bool
			Rows   []string
		}
		Quotes, Unique int
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("-suggest -format json is not JSON: %v\n%s", err, js)
	}
	m := regexp.MustCompile(`# (\d+) quotes, (\d+) with a unique source`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("-suggest text has no count line:\n%s", text)
	}
	quotes, _ := strconv.Atoi(m[1])
	unique, _ := strconv.Atoi(m[2])
	if doc.Quotes != quotes || doc.Unique != unique || len(doc.Suggestions) != quotes {
		t.Errorf("-suggest json: %d quotes (%d listed), %d unique; text says %d and %d", doc.Quotes, len(doc.Suggestions), doc.Unique, quotes, unique)
	}
	for _, s := range doc.Suggestions {
		if s.Unique && (len(s.Rows) != 1 || !strings.Contains(text, "\n"+s.Rows[0]+"\n")) {
			t.Errorf("-suggest json: unique row for %q = %q, not an uncommented row of the text form", s.Quote, s.Rows)
		}
	}
	if code, _, errs := runAudit(t, "-root", root, "-suggest", "-format", "html"); code != 2 || !strings.Contains(errs, "text or json") {
		t.Errorf("-suggest -format html = %d, %q; want 2 saying text or json", code, errs)
	}
}
