//go:build !unix

package main

import "os"

// terminalWidth is 0 where the terminal's width is not read.
func terminalWidth(*os.File) int { return 0 }
