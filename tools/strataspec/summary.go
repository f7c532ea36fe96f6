package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/strataspec/strataspec/engine/report"
)

// StepSummaryLimit is GitHub's limit on one step's job summary: 1 MiB.
const StepSummaryLimit = 1 << 20

// writeStepSummary appends the report in Markdown to the job summary file
// GitHub names in $GITHUB_STEP_SUMMARY (path; "" writes nothing), within
// what is left of the step's 1 MiB; a report over it says so and drops the
// passes first.
func writeStepSummary(path string, rep *report.Report, o report.Options) error {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("job summary: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("job summary: %w", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("job summary: %s: not a regular file", path)
	}
	left := StepSummaryLimit - int(st.Size())
	if left < 4096 {
		f.Close()
		return fmt.Errorf("job summary: %s already holds %d bytes of its %d", path, st.Size(), StepSummaryLimit)
	}
	o.MarkdownLimit, o.MarkdownLimitBytes = left, true
	var b bytes.Buffer
	if err := rep.WriteOptions(&b, "markdown", o); err != nil {
		f.Close()
		return fmt.Errorf("job summary: %w", err)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("job summary: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("job summary: %s: %w", path, err)
	}
	return nil
}
