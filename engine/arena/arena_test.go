package arena

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/strataspec/strataspec/engine/num"
)

func mustGiB(t *testing.T, x float64) Bytes {
	t.Helper()
	b, err := FromGiB(x)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustGB(t *testing.T, x float64) Bytes {
	t.Helper()
	b, err := FromGB(x)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestUnits(t *testing.T) {
	tests := []struct {
		name string
		got  Bytes
		want Bytes
	}{
		{"16 KiB", PageDarwinARM64, 16384},
		{"1 GiB", GiB, 1073741824},
		{"1 GB", GB, 1000000000},
		// STRATA_METAL_ARENA_GB="3.4" is decimal GB: 3.4 GiB would give 2,620 slots, not 2,441.
		{"3.4 GB", mustGB(t, 3.4), 3400000000},
		{"15.820 GiB", mustGiB(t, 15.820), 16986595656},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %d; want %d", tt.name, tt.got, tt.want)
		}
	}
	for _, x := range []float64{-1, math.NaN(), math.Inf(1), 1e12} {
		if b, err := FromGiB(x); err == nil {
			t.Errorf("FromGiB(%v) = %v; want an error", x, b)
		}
	}
}

// The audit's §3 arithmetic: 15.82 GiB / 12,288 = 1.38 MB = 84.4 × 16 KiB → 85
// pages; 3.40 GB / (85 × 16 KiB) = 2,441 slots.
func TestPlanQ2_0(t *testing.T) {
	l, err := Plan(Config{
		FileBytes:  mustGiB(t, 15.820),
		Slices:     ExpertSlices,
		PageBytes:  PageDarwinARM64,
		ArenaBytes: mustGB(t, 3.4),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := num.Round(l.SlotBytes.GBs()*1e3, 2); got != 1.38 {
		t.Errorf("slot = %.4f MB; want 1.38", got)
	}
	if got := num.Round(float64(l.SlotBytes)/float64(PageDarwinARM64), 1); got != 84.4 {
		t.Errorf("slot = %.2f pages before rounding up; want 84.4", got)
	}
	if l.SlotPages != 85 {
		t.Errorf("SlotPages = %d; want 85", l.SlotPages)
	}
	if l.StrideBytes != 85*16384 {
		t.Errorf("StrideBytes = %v; want %d", l.StrideBytes, 85*16384)
	}
	if l.Slots != 2441 {
		t.Errorf("Slots = %d; want 2441", l.Slots)
	}
}

func TestPlanErrors(t *testing.T) {
	ok := Config{FileBytes: 100 * MiB, Slices: 64, PageBytes: 16 * KiB, ArenaBytes: GB}
	tests := []struct {
		name string
		edit func(*Config)
		want error
	}{
		{"zero file", func(c *Config) { c.FileBytes = 0 }, ErrZero},
		{"zero slices", func(c *Config) { c.Slices = 0 }, ErrZero},
		{"negative slices", func(c *Config) { c.Slices = -3 }, ErrZero},
		{"zero page", func(c *Config) { c.PageBytes = 0 }, ErrZero},
		{"zero arena", func(c *Config) { c.ArenaBytes = 0 }, ErrZero},
		{"page not a power of two", func(c *Config) { c.PageBytes = 12000 }, ErrPage},
		{"stride overflows", func(c *Config) { c.FileBytes = math.MaxUint64; c.Slices = 1; c.PageBytes = 1 << 62 }, ErrOverflow},
		{"arena smaller than a slot", func(c *Config) { c.ArenaBytes = 16 * KiB }, ErrNoSlot},
		{"too many slots", func(c *Config) { c.FileBytes = 1; c.Slices = 1; c.PageBytes = 1; c.ArenaBytes = math.MaxUint64 }, ErrOverflow},
	}
	if _, err := Plan(ok); err != nil {
		t.Fatalf("Plan(%+v) = %v; want no error", ok, err)
	}
	for _, tt := range tests {
		c := ok
		tt.edit(&c)
		l, err := Plan(c)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: Plan(%+v) = %+v, %v; want %v", tt.name, c, l, err, tt.want)
		}
	}
}

// TestPlanProperty checks, for random valid configurations, that the slots fit
// (slots × pages × page ≤ arena), that one more slot would not, and that a
// slot's pages hold its bytes with less than a page to spare.
func TestPlanProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2441))
	n := 0
	for i := 0; i < 20000; i++ {
		c := Config{
			FileBytes:  Bytes(r.Uint64N(1<<46) + 1),
			Slices:     r.IntN(1<<16) + 1,
			PageBytes:  Bytes(1) << r.UintN(17), // 1 B … 64 KiB
			ArenaBytes: Bytes(r.Uint64N(1<<40) + 1),
		}
		l, err := Plan(c)
		if errors.Is(err, ErrNoSlot) {
			continue
		}
		if err != nil {
			t.Fatalf("Plan(%+v) = %v", c, err)
		}
		n++
		used := Bytes(l.Slots) * Bytes(l.SlotPages) * c.PageBytes
		if used > c.ArenaBytes || used != l.UsedBytes {
			t.Fatalf("Plan(%+v): %d slots × %d pages × %v = %v; want ≤ %v (UsedBytes %v)",
				c, l.Slots, l.SlotPages, c.PageBytes, used, c.ArenaBytes, l.UsedBytes)
		}
		if used+l.StrideBytes <= c.ArenaBytes {
			t.Fatalf("Plan(%+v): %d slots leave room for one more (%v + %v ≤ %v)",
				c, l.Slots, used, l.StrideBytes, c.ArenaBytes)
		}
		if l.SlotBytes*Bytes(c.Slices) < c.FileBytes {
			t.Fatalf("Plan(%+v): %d slots of %v do not hold the file", c, c.Slices, l.SlotBytes)
		}
		if l.StrideBytes < l.SlotBytes || l.StrideBytes-l.SlotBytes >= c.PageBytes {
			t.Fatalf("Plan(%+v): stride %v for a %v slot; want the fewest pages that hold it", c, l.StrideBytes, l.SlotBytes)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d of the random configurations were valid; the generator no longer tests much", n)
	}
}

func TestPrintedRange(t *testing.T) {
	lo, hi, err := PrintedRange(num.MustParse("15.820"), GiB)
	if err != nil {
		t.Fatal(err)
	}
	if lo != mustGiB(t, 15.8195) || hi != mustGiB(t, 15.8205) {
		t.Errorf("PrintedRange(15.820 GiB) = %v, %v; want 15.8195 and 15.8205 GiB", lo, hi)
	}
	// The printed file size determines the page count: 85 at both ends.
	for _, f := range []Bytes{lo, hi} {
		l, err := Plan(Config{FileBytes: f, Slices: ExpertSlices, PageBytes: PageDarwinARM64, ArenaBytes: 3400 * MB})
		if err != nil || l.SlotPages != 85 || l.Slots != 2441 {
			t.Errorf("Plan(file %v) = %d pages, %d slots, %v; want 85, 2441", f, l.SlotPages, l.Slots, err)
		}
	}
	// The printed arena "3.40 GB" does not determine the slot count (2,437–2,444):
	// the rule must read the exact size from STRATA_METAL_ARENA_GB.
	lo, hi, err = PrintedRange(num.MustParse("3.40"), GB)
	if err != nil {
		t.Fatal(err)
	}
	var slots []int
	for _, a := range []Bytes{lo, hi} {
		l, err := Plan(Config{FileBytes: mustGiB(t, 15.820), Slices: ExpertSlices, PageBytes: PageDarwinARM64, ArenaBytes: a})
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, l.Slots)
	}
	if slots[0] == slots[1] {
		t.Errorf("slots at 3.395 and 3.405 GB = %v; want them to differ", slots)
	}
	if _, _, err := PrintedRange(num.MustParse("2.16e-07"), GB); err == nil {
		t.Errorf("PrintedRange(2.16e-07) = nil error; want an error")
	}
}
