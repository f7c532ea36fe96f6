package archive

import (
	"testing"

	"github.com/strataspec/strataspec/engine/snaptest"
)

// BenchmarkLoad loads the m5-v3 fixture: results JSON, file checks and records.
func BenchmarkLoad(b *testing.B) {
	root := snaptest.Fixture(b, "m5-v3")
	for b.Loop() {
		if _, err := Load(root, fakeFormats); err != nil {
			b.Fatal(err)
		}
	}
}
