package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strataspec/strataspec/engine/finding"
)

// sarifRequired lists, per object of the SARIF 2.1.0 schema
// (sarif-schema-2.1.0.json) that this report writes, the properties the
// schema requires, plus the ones GitHub code scanning reads (marked gh).
var sarifRequired = map[string][]string{
	"sarifLog":                 {"version", "runs", "$schema" /* gh */},
	"run":                      {"tool", "results" /* gh */},
	"tool":                     {"driver"},
	"toolComponent":            {"name", "version", "informationUri", "rules" /* gh */},
	"reportingDescriptor":      {"id", "shortDescription", "fullDescription", "help" /* gh */},
	"multiformatMessageString": {"text"},
	"result":                   {"message", "ruleId", "level", "locations", "partialFingerprints" /* gh */},
	"message":                  {"text" /* the schema's anyOf text|id */},
	"location":                 {"physicalLocation" /* gh */},
	"physicalLocation":         {"artifactLocation" /* the schema's anyOf address|artifactLocation */},
	"artifactLocation":         {"uri" /* gh */},
	"region":                   {"startLine" /* gh; minimum 1 */},
}

type obj = map[string]any

func requireProps(t *testing.T, kind, where string, v any) obj {
	t.Helper()
	o, ok := v.(obj)
	if !ok {
		t.Fatalf("%s (%s) is %T; want an object", where, kind, v)
	}
	for _, k := range sarifRequired[kind] {
		if _, ok := o[k]; !ok {
			t.Errorf("%s (%s) lacks required property %q", where, kind, k)
		}
	}
	return o
}

// checkSARIF checks a SARIF log against the schema's required properties
// and enums, and GitHub's reading of it; it returns the results.
func checkSARIF(t *testing.T, out string) []obj {
	t.Helper()
	var log any
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("sarif output does not parse: %v\n%s", err, out)
	}
	root := requireProps(t, "sarifLog", "$", log)
	if root["version"] != "2.1.0" || root["$schema"] != sarifSchema {
		t.Errorf("sarif version, $schema = %v, %v; want 2.1.0, %s", root["version"], root["$schema"], sarifSchema)
	}
	runs := root["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("sarif log has %d runs; want 1", len(runs))
	}
	run := requireProps(t, "run", "runs[0]", runs[0])
	drv := requireProps(t, "toolComponent", "driver", requireProps(t, "tool", "tool", run["tool"])["driver"])
	ruleIdx := map[string]int{}
	for i, rv := range drv["rules"].([]any) {
		rule := requireProps(t, "reportingDescriptor", "rules[]", rv)
		id := rule["id"].(string)
		for _, k := range []string{"shortDescription", "fullDescription", "help"} {
			if text := requireProps(t, "multiformatMessageString", k, rule[k])["text"]; text == "" || text == nil {
				t.Errorf("rule %s %s.text = %v; want a text", id, k, text)
			}
		}
		if _, dup := ruleIdx[id]; dup {
			t.Errorf("rule %s listed twice", id)
		}
		ruleIdx[id] = i
	}
	seen := map[string]bool{}
	var results []obj
	for _, rv := range run["results"].([]any) {
		res := requireProps(t, "result", "results[]", rv)
		results = append(results, res)
		switch res["level"] {
		case "none", "note", "warning", "error":
		default:
			t.Errorf("result level %v; want one of the schema's enum none, note, warning, error", res["level"])
		}
		i, ok := ruleIdx[res["ruleId"].(string)]
		if !ok {
			t.Fatalf("result's ruleId %v is not in the driver's rules", res["ruleId"])
		}
		if res["ruleIndex"] != float64(i) {
			t.Errorf("result ruleIndex of %v = %v; want %d", res["ruleId"], res["ruleIndex"], i)
		}
		if text := requireProps(t, "message", "message", res["message"])["text"]; text == "" || text == nil {
			t.Errorf("result of %v has message text %v; want a text", res["ruleId"], text)
		}
		for _, lv := range res["locations"].([]any) {
			phys := requireProps(t, "physicalLocation", "physicalLocation", requireProps(t, "location", "location", lv)["physicalLocation"])
			uri := requireProps(t, "artifactLocation", "artifactLocation", phys["artifactLocation"])["uri"].(string)
			if strings.HasPrefix(uri, "/") || strings.Contains(uri, "..") || strings.Contains(uri, "://") || strings.Contains(uri, ": ") {
				t.Errorf("uri %q is not a path from the repository root", uri)
			}
			if reg, ok := phys["region"]; ok {
				if line := requireProps(t, "region", "region", reg)["startLine"].(float64); line < 1 {
					t.Errorf("region startLine of %s = %v; want at least 1", uri, line)
				}
			}
		}
		for k, v := range res["partialFingerprints"].(obj) {
			fp := k + "=" + v.(string)
			if seen[fp] {
				t.Errorf("fingerprint %s is not unique", fp)
			}
			seen[fp] = true
		}
	}
	return results
}

func TestSARIF(t *testing.T) {
	fs := append([]finding.Finding{}, readerSample()...)
	fs = append(fs,
		finding.Finding{Rule: "summary", ID: "F01", Severity: finding.Fail, File: "results/r.json: runs[3].output_tail", Line: 12, Message: "tail"},
		finding.Finding{Rule: "provenance", Severity: finding.Warn, Message: "no file"},
		fs[0]) // the same finding twice still gets two fingerprints
	r := NewWithRules("fixtures/x", append(readerRules(), RuleInfo{Name: "summary", Doc: "summaries recompute", Applied: true}), fs)
	results := checkSARIF(t, write(t, r, "sarif", Options{PathPrefix: "sub/snap", ToolVersion: "v1.2.3"}))
	nonPass := 0
	for _, f := range fs {
		if f.Severity != finding.Pass {
			nonPass++
		}
	}
	if len(results) != nonPass {
		t.Fatalf("sarif has %d results; want %d, one per fail or warn finding", len(results), nonPass)
	}
	loc := func(i int) obj {
		return results[i]["locations"].([]any)[0].(obj)["physicalLocation"].(obj)
	}
	tail := len(results) - 3
	for _, tt := range []struct {
		what string
		got  any
		want any
	}{
		{"results[0] artifactLocation", loc(0)["artifactLocation"], obj{"uri": "sub/snap/run.py"}},
		{"results[0] region", loc(0)["region"], obj{"startLine": float64(680)}},
		{"results[0] level", results[0]["level"], "error"},
		{"tail result uri", loc(tail)["artifactLocation"].(obj)["uri"], "sub/snap/results/r.json"},
		// a tail line is not a line of the file: the file's first line, the place in the message
		{"tail result region", loc(tail)["region"], obj{"startLine": float64(1)}},
		{"tail result message", results[tail]["message"].(obj)["text"], "runs[3].output_tail line 12: tail"},
		// a finding with no line points at the first (code scanning needs a region)
		{"lineless result region", loc(len(results) - 2)["region"], obj{"startLine": float64(1)}},
	} {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("sarif %s mismatch (-want +got):\n%s", tt.what, diff)
		}
	}
	if out, want := write(t, r, "sarif", Options{ToolVersion: "v1.2.3"}), `"version": "v1.2.3"`; !strings.Contains(out, want) {
		t.Errorf("sarif with ToolVersion v1.2.3 lacks %s:\n%s", want, out)
	}
}

// TestSARIFURIs: artifact URIs are URI references (RFC 3986): a space, a
// percent sign or a non-ASCII letter in a path is percent-encoded.
func TestSARIFURIs(t *testing.T) {
	for _, tt := range []struct{ prefix, file, want string }{
		{"snap", "PLAN.md", "snap/PLAN.md"},
		{"my snaps/m5 v3", "PLAN.md", "my%20snaps/m5%20v3/PLAN.md"},
		{".", "data/100% ja/§1.txt", "data/100%25%20ja/%C2%A71.txt"},
		{".", "a#b?c.md", "a%23b%3Fc.md"},
	} {
		f := finding.Finding{Rule: "plan.stale", Severity: finding.Fail, File: tt.file, Line: 2, Message: "m"}
		res := checkSARIF(t, write(t, New("r", nil, []finding.Finding{f}), "sarif", Options{PathPrefix: tt.prefix}))
		got := res[0]["locations"].([]any)[0].(obj)["physicalLocation"].(obj)["artifactLocation"].(obj)["uri"]
		if got != tt.want {
			t.Errorf("sarif uri of %q under %q = %q; want %q", tt.file, tt.prefix, got, tt.want)
		}
	}
}

func TestSARIFFingerprintsSurviveLineMoves(t *testing.T) {
	f := readerSample()[1]
	moved := f
	moved.Line += 40
	other := f
	other.Quote = "5,793.62 ms"
	fp := func(fs ...finding.Finding) []any {
		var out []any
		for _, res := range checkSARIF(t, write(t, New("r", nil, fs), "sarif", Options{})) {
			out = append(out, res["partialFingerprints"].(obj)[fingerprintKey])
		}
		return out
	}
	base := fp(f)
	if len(base) != 1 || base[0] == nil || base[0] == "" {
		t.Fatalf("fingerprint of one finding = %v; want one", base)
	}
	if got := fp(moved); !cmp.Equal(got, base) {
		t.Errorf("fingerprint after the line moved = %v; want %v: a finding whose line moved keeps its fingerprint", got, base)
	}
	if got := fp(other); cmp.Equal(got, base) {
		t.Errorf("fingerprint of another quote = %v; want other than %v: another quote is another alert", got, base)
	}
}
