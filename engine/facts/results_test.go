package facts

import (
	"errors"
	"testing"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/snaptest"
	"github.com/strataspec/strataspec/engine/tables"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResultsTables(t *testing.T) {
	snap, err := archive.Load(snaptest.Fixture(t, "m5-v3"))
	require.NoError(t, err)
	docs, err := analysis.Compute(analysis.NewDriver(snap), Results)
	require.NoError(t, err)
	require.Equal(t, []string{snaptest.ResultsFile}, docs.Files)

	perf, err := docs.Table(tables.Loc{Path: "perf"})
	require.NoError(t, err)
	assert.Equal(t, snaptest.ResultsFile, perf.File)
	assert.Len(t, perf.Rows, 14)
	same, err := docs.Table(tables.Loc{File: snaptest.ResultsFile, Path: "perf"})
	require.NoError(t, err)
	assert.Equal(t, perf.Line, same.Line)

	for _, loc := range []tables.Loc{{Path: "no_such_block"}, {File: "results/other.json", Path: "perf"}} {
		_, err := docs.Table(loc)
		assert.True(t, errors.Is(err, ErrAbsent) && errors.Is(err, tables.ErrMissing), "Table(%v) = %v; want ErrAbsent and tables.ErrMissing", loc, err)
	}
}
