package gate

import (
	"testing"

	"github.com/strataspec/strataspec/engine/claims/eval"
	"github.com/strataspec/strataspec/engine/claims/eval/evaltest"
	"github.com/strataspec/strataspec/engine/plan"
)

// TestItemPlaces: a section or skip line names an item of the plan by its
// number however the plan writes the item (issue 19: `section §2.7.A #29`
// was "not in PLAN.md" for an ordered-list entry): an ordered-list entry
// (29.), a bold label (**#30 — …**, **Item 31.**), a "#### #32 —" heading;
// a heading without a number by its text or its path; an item the section
// does not hold, or a heading the plan has not, is missing at its line.
func TestItemPlaces(t *testing.T) {
	doc := plan.Parse("PLAN.md", []byte("## 2. Arena\n\n### 2.7.A Items\n\n28. first 1 GB\n29. llama.cpp 14.3 tok/s\n\n"+
		"**#30 — bold.** 2.5 GB\n\n**Item 31.** 3 GB\n\n#### #32 — heading\n\n4 GB\n\n### Untitled notes\n\n5 GB\n"))
	checkPlaces(t, doc, []placeCase{
		{"section §2.7.A #29", false},
		{"section §2.7.A #28", false},
		{"skip §2.7.A #30", false},
		{"skip §2.7.A #31", false},
		{"skip §2.7.A #32", false},
		{"section §2 > Untitled notes", false},
		{"section Untitled notes", false}, // by its text alone
		{"section untitled  NOTES", false},
		{"section Other notes", true},
		{"section §2.7.A #33", true},
		{"section §2.7.B #29", true},
	})
}

// placeCase is a PLAN.claims line naming a place, and whether the plan
// lacks that place.
type placeCase struct {
	line    string
	missing bool
}

// checkPlaces checks each line alone against doc: missing at its line
// exactly when the case says so.
func checkPlaces(t *testing.T, doc *plan.Doc, cases []placeCase) {
	t.Helper()
	for _, tt := range cases {
		tb := evaltest.Parse("PLAN.claims", tt.line+"\n")
		if err := tb.Err(); err != nil {
			t.Errorf("Parse(%q) = %v; want no error", tt.line, err)
			continue
		}
		res := Check(doc, tb, eval.NewEnv(tb, nil, nil, nil))
		if got := len(res.MissingSections) == 1 && res.MissingSections[0].Line == 1; got != tt.missing {
			t.Errorf("Check(%q) missing = %v (%+v); want %v", tt.line, got, res.MissingSections, tt.missing)
		}
	}
}
