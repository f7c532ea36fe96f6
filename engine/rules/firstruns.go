package rules

// firstRuns returns, per model file (the --model argument), the first strata
// run in archive order that reads it: the run that finds its expert file cold.
// It stays for PlanCheck (plan.go) until the plan rules leave the legacy
// package; the kld rule (engine/rules/tfkld) finds first runs itself.
func firstRuns(c *Context) map[string]string {
	first := map[string]string{}
	for _, r := range c.Snap.StrataRuns() {
		for i := 0; i+1 < len(r.Cmd); i++ {
			if r.Cmd[i] == "--model" {
				if _, ok := first[r.Cmd[i+1]]; !ok {
					first[r.Cmd[i+1]] = r.Name
				}
			}
		}
	}
	return first
}
