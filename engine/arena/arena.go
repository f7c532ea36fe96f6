// Package arena computes the layout of the strata engine's expert arena: how
// many expert slots of a given size fit in an arena of a given size, with every
// quantity in bytes and every unit conversion explicit.
//
// The arithmetic is the audit's (§3 "uniform arena"): the bytes of one expert
// slot are the `.experts` file size divided by the expert-slice count
// (12,288); a slot occupies a whole number of pages, ceil(slot bytes / page
// size), with 16 KiB pages on darwin/arm64; the arena holds
// floor(arena bytes / (pages × page size)) slots. For the Q2_0 file of
// 15.820 GiB and an arena of 3.40 GB that is 85 pages and 2,441 slots.
//
// GiB (2³⁰ bytes) and GB (10⁹ bytes) are both in use: the engine prints file
// sizes in GiB and the arena (STRATA_METAL_ARENA_GB, "expert arena 3.40 GB")
// in GB. Use the named constants and FromGiB/FromGB; never a bare 1e9 or 1<<30.
package arena

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/strataspec/strataspec/engine/num"
)

// Bytes is a size in bytes.
type Bytes uint64

// Units. KiB, MiB and GiB are powers of two; KB, MB and GB powers of ten.
const (
	KiB Bytes = 1 << 10
	MiB Bytes = 1 << 20
	GiB Bytes = 1 << 30
	KB  Bytes = 1e3
	MB  Bytes = 1e6
	GB  Bytes = 1e9
)

// Constants of the M5 validation, as the audit gives them.
const (
	// PageDarwinARM64 is the VM page size on darwin/arm64 (Apple Silicon).
	PageDarwinARM64 = 16 * KiB
	// ExpertSlices is the number of expert slices in a `.experts` file of the
	// audited model: one slot holds one slice.
	ExpertSlices = 12288
)

// GiBs returns b in GiB.
func (b Bytes) GiBs() float64 { return float64(b) / float64(GiB) }

// GBs returns b in GB.
func (b Bytes) GBs() float64 { return float64(b) / float64(GB) }

// String prints b as an exact byte count, e.g. "1392640 B".
func (b Bytes) String() string { return strconv.FormatUint(uint64(b), 10) + " B" }

// FromGiB converts a size in GiB to bytes, rounding to the nearest byte.
func FromGiB(x float64) (Bytes, error) { return fromUnit(x, GiB, "GiB") }

// FromGB converts a size in GB (10⁹ bytes) to bytes, rounding to the nearest
// byte. STRATA_METAL_ARENA_GB="3.4" is FromGB(3.4) = 3,400,000,000 bytes.
func FromGB(x float64) (Bytes, error) { return fromUnit(x, GB, "GB") }

func fromUnit(x float64, unit Bytes, name string) (Bytes, error) {
	v := x * float64(unit)
	// 2⁶⁴ is exactly representable; anything at or above it overflows.
	if math.IsNaN(v) || v < 0 || v >= 1<<64 {
		return 0, fmt.Errorf("arena: %v %s is not a size in bytes", x, name)
	}
	return Bytes(math.Round(v)), nil
}

// Config is one uniform arena: a single slot size for every expert slice.
type Config struct {
	FileBytes  Bytes // size of the `.experts` file
	Slices     int   // expert slices in the file (ExpertSlices for the audited model)
	PageBytes  Bytes // VM page size, a power of two (PageDarwinARM64)
	ArenaBytes Bytes // arena size (STRATA_METAL_ARENA_GB × GB)
}

// Layout is the arena a Config yields.
type Layout struct {
	SlotBytes   Bytes // bytes of one expert slice: ceil(FileBytes / Slices)
	SlotPages   int   // pages one slot occupies: ceil(SlotBytes / PageBytes)
	StrideBytes Bytes // bytes one slot occupies in the arena: SlotPages × PageBytes
	Slots       int   // slots the arena holds: floor(ArenaBytes / StrideBytes)
	UsedBytes   Bytes // Slots × StrideBytes, ≤ ArenaBytes
}

// Errors of Plan. They are wrapped with the offending values.
var (
	ErrZero     = errors.New("zero size or count")
	ErrPage     = errors.New("page size is not a power of two")
	ErrOverflow = errors.New("size overflows 64 bits")
	ErrNoSlot   = errors.New("arena holds no slot")
)

// Plan lays out a uniform arena. A slice that does not divide the file evenly
// rounds up: a slot must hold the largest slice. Plan returns an error, never
// a zero Layout, for a configuration the engine could not run: a zero size or
// count, a page size that is not a power of two, a slot stride that overflows
// 64 bits, or an arena smaller than one slot.
func Plan(c Config) (Layout, error) {
	switch {
	case c.FileBytes == 0, c.Slices <= 0, c.PageBytes == 0, c.ArenaBytes == 0:
		return Layout{}, fmt.Errorf("arena: file %v, slices %d, page %v, arena %v: %w",
			c.FileBytes, c.Slices, c.PageBytes, c.ArenaBytes, ErrZero)
	case c.PageBytes&(c.PageBytes-1) != 0:
		return Layout{}, fmt.Errorf("arena: page %v: %w", c.PageBytes, ErrPage)
	}
	var l Layout
	l.SlotBytes = ceilDiv(c.FileBytes, Bytes(c.Slices))
	pages := ceilDiv(l.SlotBytes, c.PageBytes)
	hi, stride := bits.Mul64(uint64(pages), uint64(c.PageBytes))
	if hi != 0 || uint64(pages) > math.MaxInt {
		return Layout{}, fmt.Errorf("arena: %d pages of %v: %w", pages, c.PageBytes, ErrOverflow)
	}
	l.SlotPages = int(pages)
	l.StrideBytes = Bytes(stride)
	slots := c.ArenaBytes / l.StrideBytes
	if slots == 0 {
		return Layout{}, fmt.Errorf("arena: %v arena, %v slot stride: %w", c.ArenaBytes, l.StrideBytes, ErrNoSlot)
	}
	if uint64(slots) > math.MaxInt {
		return Layout{}, fmt.Errorf("arena: %d slots: %w", slots, ErrOverflow)
	}
	l.Slots = int(slots)
	l.UsedBytes = slots * l.StrideBytes
	return l, nil
}

// ceilDiv returns ceil(a / b) for b > 0 without overflowing.
func ceilDiv(a, b Bytes) Bytes {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// PrintedRange returns the byte sizes a size printed as n in unit can stand
// for: the value plus or minus half a unit in its last printed digit, so
// "15.820" GiB is [15.8195, 15.8205] GiB. A count derived from a printed size
// is determined by it only if it is the same at both ends.
func PrintedRange(n num.Number, unit Bytes) (lo, hi Bytes, err error) {
	if n.Sci {
		return 0, 0, fmt.Errorf("arena: size %q: scientific notation is not a printed size", n.Text)
	}
	half := 0.5 * math.Pow(10, -float64(n.Decimals))
	if lo, err = fromUnit(n.Value-half, unit, unitName(unit)); err != nil {
		return 0, 0, err
	}
	if hi, err = fromUnit(n.Value+half, unit, unitName(unit)); err != nil {
		return 0, 0, err
	}
	return lo, hi, nil
}

func unitName(u Bytes) string {
	switch u {
	case KiB:
		return "KiB"
	case MiB:
		return "MiB"
	case GiB:
		return "GiB"
	case KB:
		return "KB"
	case MB:
		return "MB"
	case GB:
		return "GB"
	}
	return "× " + u.String()
}
