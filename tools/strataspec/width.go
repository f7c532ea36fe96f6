package main

import (
	"io"
	"os"
	"strconv"
)

// textWidth is the width the text report wraps to: $COLUMNS when it is a
// number, else the terminal's width when out is one, else 0 (the report's
// default, 100 columns).
func textWidth(out io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := out.(*os.File); ok {
		if n := terminalWidth(f); n > 0 {
			return n
		}
	}
	return 0
}
