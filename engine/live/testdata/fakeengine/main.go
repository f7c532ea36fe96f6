// Command fakeengine replays a recorded strata run as the engine would print
// it, for the live re-run tests (see engine/live/livetest).
package main

import (
	"os"

	"github.com/strataspec/strataspec/engine/live/livetest"
)

func main() { os.Exit(livetest.Main()) }
