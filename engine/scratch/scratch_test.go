package scratch

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/strataspec/strataspec/engine/arena"
	"github.com/strataspec/strataspec/engine/num"
)

// The audit's figures (§2): p.R + p.emb = 1,024 × (4·2,560 + 2,560) × 4 B =
// 0.052 GB; the need for C = 1,024, 4,224 cells, PLE on, flash is 1.3586 GB,
// logged as 1.36.
func TestAuditFigures(t *testing.T) {
	cpu, err := CPUFaulted(M5())
	if err != nil {
		t.Fatal(err)
	}
	if want := arena.Bytes(1024 * (4*2560 + 2560) * 4); cpu != want {
		t.Errorf("CPUFaulted(M5()) = %v; want %v", cpu, want)
	}
	need, err := Need(M5())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		got    float64
		quoted string
	}{
		{cpu.GBs(), "0.052"},
		{need.GBs(), "1.3586"},
		{need.GBs(), "1.36"},
	} {
		if !num.Matches(tt.got, num.MustParse(tt.quoted)) {
			t.Errorf("%.7f GB does not print as %s", tt.got, tt.quoted)
		}
	}
}

// grid is the configurations the two paths are compared over: chunk sizes on
// and off tile boundaries, tiles other than the default 16, widths and
// per-row sizes including zero.
func grid() []Config {
	var out []Config
	for _, c := range []int{1, 15, 16, 17, 100, 1000, 1024, 2048, 4097} {
		for _, d := range []int{1, 2560, 4096} {
			for _, tm := range []int{1, 8, 16, 24, 32, 64} {
				for _, rb := range []arena.Bytes{0, 1, M5().RowBytes} {
					out = append(out, Config{C: c, D: d, TM: tm, RowBytes: rb, Cells: 4224, PLE: true, Flash: true})
				}
			}
		}
	}
	return out
}

// disagreements returns the configurations of g where the planning path and
// the sizing path give different sizes, or either fails.
func disagreements(plan, size func(Config) (arena.Bytes, error), g []Config) []string {
	var out []string
	for _, c := range g {
		p, perr := plan(c)
		s, serr := size(c)
		if perr != nil || serr != nil || p != s {
			out = append(out, fmt.Sprintf("C=%d d=%d TM=%d row=%d: plan %v (%v), size %v (%v)",
				c.C, c.D, c.TM, c.RowBytes, p, perr, s, serr))
		}
	}
	return out
}

// sizeOf is the sizing path as the engine uses it: allocate every buffer and
// add up what was allocated.
func sizeOf(c Config) (arena.Bytes, error) {
	bufs, err := Buffers(c)
	var total arena.Bytes
	for _, b := range bufs {
		total += b.Bytes
	}
	return total, err
}

// legacyNeed is the audit's ⚠ reproduced: a hand-kept copy of the sizes with
// the row tile hard-coded to 16 where the configuration says TM.
func legacyNeed(c Config) (arena.Bytes, error) {
	const tm = 16
	rows := (c.C + tm - 1) / tm * tm
	return arena.Bytes(c.C*4*c.D*FloatBytes+c.C*c.D*FloatBytes) + arena.Bytes(rows)*c.RowBytes, nil
}

func TestPlanEqualsSize(t *testing.T) {
	g := grid()
	if d := disagreements(Need, sizeOf, g); len(d) > 0 {
		t.Errorf("Need and Buffers disagree on %d of %d configurations:\n%v", len(d), len(g), d)
	}
	// The same comparison catches the audit's hand-kept duplicate: it agrees
	// at TM = 16 (every audited run) and drifts where a chunk is not a whole
	// number of tiles of another size. A check that only ran the audited
	// configuration would never see it.
	d := disagreements(legacyNeed, sizeOf, g)
	if len(d) == 0 {
		t.Fatalf("the hard-coded-16 mirror agrees on the whole grid; the grid does not exercise TM")
	}
	if got := disagreements(legacyNeed, sizeOf, []Config{M5()}); len(got) != 0 {
		t.Errorf("the hard-coded-16 mirror disagrees at the audited configuration: %v", got)
	}
}

func TestBuffers(t *testing.T) {
	bufs, err := Buffers(M5())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		bytes  arena.Bytes
		source string
	}{
		{"R", 1024 * 4 * 2560 * 4, "audit §2"},
		{"emb", 1024 * 2560 * 4, "audit §2"},
		{"rows", 1024 * M5().RowBytes, "model"},
	}
	if len(bufs) != len(want) {
		t.Fatalf("Buffers(M5()) = %d buffers; want %d", len(bufs), len(want))
	}
	for i, w := range want {
		if b := bufs[i]; b.Name != w.name || b.Bytes != w.bytes || b.Source != w.source {
			t.Errorf("Buffers(M5())[%d] = %s %v (%s); want %s %v (%s)", i, b.Name, b.Bytes, b.Source, w.name, w.bytes, w.source)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		c    Config
		want error
	}{
		{Config{C: 0, D: 1, TM: 16}, ErrConfig},
		{Config{C: 1, D: 0, TM: 16}, ErrConfig},
		{Config{C: 1, D: 1, TM: 0}, ErrConfig},
		{Config{C: -1, D: 1, TM: 16}, ErrConfig},
		{Config{C: math.MaxInt / 2, D: math.MaxInt / 2, TM: 16}, ErrOverflow},
		{Config{C: 1 << 20, D: 1, TM: 16, RowBytes: math.MaxUint64 / 2}, ErrOverflow},
		// Each term fits, their sum does not.
		{Config{C: 1, D: 1, TM: 1, RowBytes: math.MaxUint64 - 5}, ErrOverflow},
	}
	for _, tt := range tests {
		if got, err := Need(tt.c); !errors.Is(err, tt.want) {
			t.Errorf("Need(%+v) = %v, %v; want %v", tt.c, got, err, tt.want)
		}
	}
}

func TestMaxRows(t *testing.T) {
	tests := []struct {
		c, tm int
		want  uint64
	}{
		{1024, 16, 1024}, {1000, 16, 1008}, {1, 16, 16}, {17, 16, 32}, {5, 1, 5},
		{1, math.MaxInt, math.MaxInt}, {math.MaxInt, math.MaxInt, math.MaxInt}, {math.MaxInt, 2, math.MaxInt + 1},
	}
	for _, tt := range tests {
		if got := maxRows(tt.c, tt.tm); got != tt.want {
			t.Errorf("maxRows(%d, %d) = %d; want %d", tt.c, tt.tm, got, tt.want)
		}
	}
	// From review: c + TM − 1 overflowed int for a TM near MaxInt, and the
	// rows term came out wrong (2⁶³ + 1 rows for one tile of MaxInt) without
	// an error.
	c := Config{C: 2, D: 1, TM: math.MaxInt, RowBytes: 1}
	want := arena.Bytes(2*4*1*FloatBytes + 2*1*FloatBytes + math.MaxInt)
	if got, err := Need(c); err != nil || got != want {
		t.Errorf("Need(%+v) = %d, %v; want %d", c, got, err, want)
	}
}
