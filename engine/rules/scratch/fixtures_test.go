package scratch_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/audit/audittest"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/snaptest"
)

// TestSpecDecides changes the scratch rule's settings in a copy of the
// fixed snapshot: each change changes the findings as it should.
func TestSpecDecides(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		sev      finding.Severity
		check    string
		contains string
	}{
		{"as fixed", "", "", finding.Pass, "need",
			"plan line 1.36 GB = prompt_gemm_init 1.36 GB = need 1.3586 GB (C = 1,024, 4,224 cells, PLE on, flash on), in all 14 strata runs"},
		{"another row size", `"row_bytes": 1275558, "cells": 4224, "ple": true, "flash": true,`, `"row_bytes": 1375558, "cells": 4224, "ple": true, "flash": true,`, finding.Fail, "need",
			"run strata_q2_0_moce0_short_43tok: plan line scratch 1.36 GB ≠ need 1.4610 GB"},
		{"a need for another chunk", `"need": {"c": 1024`, `"need": {"c": 2048`, finding.Warn, "need",
			"the spec's need is for C = 2,048, 4,224 cells only, so its scratch is not checked"},
		{"no need model", "need", "", finding.Pass, "need",
			"plan line 1.36 GB = prompt_gemm_init 1.36 GB in all 14 strata runs (and the mem: line's 1.36 GB in 14 of them); the spec gives no need model (rules.scratch.need), so the need itself is not recomputed"},
		{"a planning function the source lacks", `"planning": ["prompt_gemm_need_bytes", "prompt_gemm_need_bytes_for"]`, `"planning": ["plan_scratch"]`, finding.Warn, "mirror",
			"vendor/strata/metal/window.cpp: no definition of plan_scratch() and no assert that it equals the measured need"},
		{"no explicit-arena variable", `"explicit_env": "STRATA_METAL_ARENA_GB"`, `"explicit_env": ""`, finding.Pass, "mirror",
			"asserts the measured need equals prompt_gemm_need_bytes()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := snaptest.CopyFixture(t, "m5")
			spec := filepath.Join(root, "strataspec.json")
			switch tt.old {
			case "":
			case "need": // remove the need model
				s := snaptest.Read(t, spec)
				cut := regexp.MustCompile(`"need": \{[^}]*\},\s*`).ReplaceAllString(s, "")
				if cut == s {
					t.Fatalf("%s: no need model to remove", spec)
				}
				snaptest.Write(t, spec, cut)
			default:
				snaptest.Edit(t, spec, tt.old, tt.new)
			}
			rep, err := audittest.Audit(root, "scratch")
			if err != nil {
				t.Fatalf("audit.Audit(%s, \"scratch\"): %v", tt.name, err)
			}
			var got []string
			found := false
			for _, f := range rep.Findings {
				got = append(got, f.Severity.String()+" "+f.Check+": "+f.Message)
				found = found || f.Severity == tt.sev && f.Check == tt.check && strings.Contains(f.Message, tt.contains)
				if tt.name == "no explicit-arena variable" && f.Check == "cap" {
					t.Errorf("cap finding %q without an explicit-arena variable", f.Message)
				}
			}
			if !found {
				t.Fatalf("scratch(%s): no %s %s finding containing %q in\n%s", tt.name, tt.sev, tt.check, tt.contains, strings.Join(got, "\n"))
			}
		})
	}
}
