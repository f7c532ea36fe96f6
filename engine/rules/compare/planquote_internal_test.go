package compare

import (
	"testing"

	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/plan"
	"github.com/strataspec/strataspec/engine/tables"
)

// TestPlanQuote: the plan line that presents a field's value is found by
// the numbers the plan reader reads, not by a substring of its text.
func TestPlanQuote(t *testing.T) {
	tests := []struct {
		plan, field string
		want        int
	}{
		{"# p\n\nper token 1,653.9 MB/tok\n", "1653.93", 3},
		{"# p\n\nper token 11,653.9 MB/tok\n", "1653.93", 0}, // the digits inside a longer number
		{"# p\n\nper token 1,653.95 MB/tok\n", "1653.93", 0},
		{"# p\n\n1,653.9\n\nper token 1,653.9 MB/tok\n", "1653.93", 3},
		{"# p\n\n```\n1,653.9 MB/tok\n```\n", "1653.93", 4}, // in a code block too
		{"# p\n\nno number\n", "1653.93", 0},
	}
	for _, tt := range tests {
		n := num.MustParse(tt.field)
		n.Decimals = 1 // the runner rounds to one decimal, as rate's fields are printed
		rr := &rateRun{plan: plan.Parse("PLAN.md", []byte(tt.plan))}
		if got := rr.planQuote(tables.Field{Num: n}); got != tt.want {
			t.Errorf("planQuote(%q, %s) = %d; want %d", tt.plan, tt.field, got, tt.want)
		}
	}
}
