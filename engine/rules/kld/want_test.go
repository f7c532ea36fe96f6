package kld

import (
	"testing"

	"github.com/strataspec/strataspec/engine/analysis/analysistest"
)

// TestWant: the cases in testdata, each with the findings it wants
// beside it (analysistest.RunCases).
func TestWant(t *testing.T) { analysistest.RunCases(t, "testdata", KLD) }
