package checkout

import (
	"errors"
	"slices"
	"testing"

	"github.com/strataspec/strataspec/engine/names"
)

// TestCheckNamesAll: every misnamed key is an *Error of its own (joined),
// naming the name as written (the rule part of an ids key) and the names
// known, so a caller can give each to the rule it meant; none is dropped
// after the first.
func TestCheckNamesAll(t *testing.T) {
	known := []string{"parity", "tf"}
	spec := "{\"rules\": {\n\"parityy\": {},\n\"tff\": {}},\n\"ids\": {\"tff/layout\": \"F32\"}}"
	err := mustParse(t, spec).CheckNames(known, names.DidYouMean)
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("CheckNames(%q) = %v; want the errors joined", spec, err)
	}
	var got []string
	for _, e := range j.Unwrap() {
		ce, ok := errors.AsType[*Error](e)
		if !ok || !slices.Equal(ce.Known, known) || ce.Suggest != "" {
			t.Fatalf("CheckNames(%q): %v is not an *Error with Known %v and no Suggest", spec, e, known)
		}
		got = append(got, ce.Unknown)
	}
	if want := []string{"parityy", "tff", "tff"}; !slices.Equal(got, want) {
		t.Errorf("CheckNames(%q): unknown names %q; want %q", spec, got, want)
	}
}
