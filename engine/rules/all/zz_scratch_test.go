package all

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis/analysistest"
)

func TestZZScratch(t *testing.T) {
	dir, rule := os.Getenv("ZZ_DIR"), os.Getenv("ZZ_RULE")
	if dir == "" {
		t.Skip()
	}
	for _, a := range Analyzers() {
		if a.Name != rule {
			continue
		}
		fs, na, err := analysistest.Run(t, dir, a)
		fmt.Println("ERR", err, "NA", na)
		for _, f := range fs {
			c := f.Severity.String()
			if f.Check != "" {
				c += "/" + f.Check
			}
			p := f.File
			if p == "" {
				p = "-"
			} else if f.Line > 0 {
				p += ":" + strconv.Itoa(f.Line)
			}
			fmt.Printf("%s %s %q   [id %s]\n", c, p, f.Message, f.ID)
		}
	}
}
