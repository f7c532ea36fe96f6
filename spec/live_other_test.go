//go:build !(darwin && arm64)

package spec

import (
	"fmt"
	"runtime"
	"testing"
)

// strataEngine says why strata's runs cannot re-run here: strata's engine
// is a Metal program, built and run on darwin/arm64 only.
func strataEngine(*testing.T) string {
	return fmt.Sprintf("strata's engine is a Metal program: its runs re-run on darwin/arm64 only, not on %s/%s", runtime.GOOS, runtime.GOARCH)
}
