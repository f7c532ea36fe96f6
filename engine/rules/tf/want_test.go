package tf_test

import (
	"testing"

	"github.com/strataspec/strataspec/engine/analysis/analysistest"
	"github.com/strataspec/strataspec/engine/rules/tf"
)

// TestWant: the cases in testdata, each with the findings it wants
// beside it (analysistest.RunCases).
func TestWant(t *testing.T) { analysistest.RunCases(t, "testdata", tf.TF) }
