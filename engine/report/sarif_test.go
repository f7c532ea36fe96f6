package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.True(t, ok, "%s (%s) is %T; want an object", where, kind, v)
	for _, k := range sarifRequired[kind] {
		assert.Contains(t, o, k, "%s (%s) lacks required property %q", where, kind, k)
	}
	return o
}

// checkSARIF checks a SARIF log against the schema's required properties
// and enums, and GitHub's reading of it; it returns the results.
func checkSARIF(t *testing.T, out string) []obj {
	t.Helper()
	var log any
	require.NoError(t, json.Unmarshal([]byte(out), &log), "sarif output does not parse")
	root := requireProps(t, "sarifLog", "$", log)
	assert.Equal(t, "2.1.0", root["version"])
	assert.Equal(t, sarifSchema, root["$schema"])
	runs := root["runs"].([]any)
	require.Len(t, runs, 1, "one run")
	run := requireProps(t, "run", "runs[0]", runs[0])
	drv := requireProps(t, "toolComponent", "driver", requireProps(t, "tool", "tool", run["tool"])["driver"])
	ruleIdx := map[string]int{}
	for i, rv := range drv["rules"].([]any) {
		rule := requireProps(t, "reportingDescriptor", "rules[]", rv)
		for _, k := range []string{"shortDescription", "fullDescription", "help"} {
			assert.NotEmpty(t, requireProps(t, "multiformatMessageString", k, rule[k])["text"])
		}
		id := rule["id"].(string)
		_, dup := ruleIdx[id]
		assert.False(t, dup, "rule %s listed twice", id)
		ruleIdx[id] = i
	}
	seen := map[string]bool{}
	var results []obj
	for _, rv := range run["results"].([]any) {
		res := requireProps(t, "result", "results[]", rv)
		results = append(results, res)
		assert.Contains(t, []any{"none", "note", "warning", "error"}, res["level"], "level is in the schema's enum")
		i, ok := ruleIdx[res["ruleId"].(string)]
		require.True(t, ok, "result's ruleId %v is not in the driver's rules", res["ruleId"])
		assert.Equal(t, float64(i), res["ruleIndex"], "ruleIndex of %v", res["ruleId"])
		assert.NotEmpty(t, requireProps(t, "message", "message", res["message"])["text"])
		for _, lv := range res["locations"].([]any) {
			phys := requireProps(t, "physicalLocation", "physicalLocation", requireProps(t, "location", "location", lv)["physicalLocation"])
			uri := requireProps(t, "artifactLocation", "artifactLocation", phys["artifactLocation"])["uri"].(string)
			assert.False(t, strings.HasPrefix(uri, "/") || strings.Contains(uri, "..") || strings.Contains(uri, "://") || strings.Contains(uri, ": "),
				"uri %q is not a path from the repository root", uri)
			if reg, ok := phys["region"]; ok {
				assert.GreaterOrEqual(t, requireProps(t, "region", "region", reg)["startLine"].(float64), float64(1))
			}
		}
		for k, v := range res["partialFingerprints"].(obj) {
			fp := k + "=" + v.(string)
			assert.False(t, seen[fp], "fingerprint %s is not unique", fp)
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
	require.Len(t, results, nonPass, "one result per fail or warn finding")
	loc := func(i int) obj {
		return results[i]["locations"].([]any)[0].(obj)["physicalLocation"].(obj)
	}
	assert.Equal(t, obj{"uri": "sub/snap/run.py"}, loc(0)["artifactLocation"])
	assert.Equal(t, obj{"startLine": float64(680)}, loc(0)["region"])
	tailRes := results[len(results)-3]
	assert.Equal(t, "sub/snap/results/r.json", tailRes["locations"].([]any)[0].(obj)["physicalLocation"].(obj)["artifactLocation"].(obj)["uri"])
	assert.Equal(t, obj{"startLine": float64(1)}, tailRes["locations"].([]any)[0].(obj)["physicalLocation"].(obj)["region"], "a tail line is not a line of the file: the file's first line, the place in the message")
	assert.Equal(t, "runs[3].output_tail line 12: tail", tailRes["message"].(obj)["text"])
	assert.Equal(t, obj{"startLine": float64(1)}, loc(len(results) - 2)["region"], "a finding with no line points at the first (code scanning needs a region)")
	assert.Equal(t, "error", results[0]["level"])
	assert.Contains(t, write(t, r, "sarif", Options{ToolVersion: "v1.2.3"}), `"version": "v1.2.3"`)
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
	assert.Equal(t, fp(f), fp(moved), "a finding whose line moved keeps its fingerprint")
	assert.NotEqual(t, fp(f), fp(other), "another quote is another alert")
}
