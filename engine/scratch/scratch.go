// Package scratch sizes the strata engine's prompt-GEMM scratch: the buffers
// a prompt pass of C tokens allocates, and the need the plan reserves for them.
//
// The audit (§2 ⚠) found the engine computing the need twice: make() sizes the
// buffers from the configuration, and prompt_gemm_need_bytes() is a
// hand-kept duplicate that re-derives the row count with a hard-coded 16
// where make() uses p.TM, with nothing asserting the two agree. Here both paths
// are one walk: Make lists the buffers, the sizing path (Buffers) records what
// it lists and the planning path (Need) sums it, so they cannot disagree.
//
// # What is measured and what is a model
//
// Two terms are the engine's: p.R + p.emb = C × (4·d + d) × 4 B (R is 4·d
// float32 per row, emb d float32 per row). The other terms are modelled as
// one term, "rows": the GEMM's row count rounded up to whole tiles of TM
// rows, times a per-row byte count (Config.RowBytes). A checkout gives the
// configuration its runs were sized at, RowBytes included, as spec data
// (rules.scratch.need in strataspec.json); where RowBytes is fitted to one
// logged figure, the spec says so, and the model's need for any other
// configuration is not a claim about the engine. The model has no term for
// KV cells, PLE or flash attention (recorded in Config, unused).
package scratch

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/strataspec/strataspec/engine/arena"
)

// Config is one prompt-GEMM configuration.
type Config struct {
	C  int // prompt chunk: tokens per prompt GEMM pass
	D  int // model width d
	TM int // GEMM row tile (p.TM; the engine's default is 16)

	// RowBytes is the model's bytes per GEMM row beyond R and emb. It is not
	// the engine's: see the package doc.
	RowBytes arena.Bytes

	// Cells, PLE and Flash describe the configuration the audit measured at.
	// The model has no term for them.
	Cells int  // KV cells
	PLE   bool // per-layer embeddings on
	Flash bool // flash attention on
}

// FloatBytes is the size of one scratch element (float32).
const FloatBytes = 4

// TMDefault is the engine's default row tile, p.TM.
const TMDefault = 16

// M5 returns the configuration of the fixtures' runs: C = 1,024, d = 2,560,
// TM = 16, 4,224 KV cells, PLE on, flash, and their fitted RowBytes.
//
// Deprecated: the configuration is the fixtures' spec data
// (rules.scratch.need, rules.memory.scratch); M5 stays only for
// spec/invariants_test.go and this package's tests, until they read the
// spec.
func M5() Config {
	return Config{C: 1024, D: 2560, TM: TMDefault, RowBytes: 1275558, Cells: 4224, PLE: true, Flash: true}
}

// Buffer is one scratch allocation.
type Buffer struct {
	Name   string      // "R", "emb", "rows"
	Bytes  arena.Bytes // size
	Source string      // "audit §2" for terms the audit gives, "model" otherwise
	// CPUFaulted marks the buffers the CPU writes (and the OS bills as
	// resident): p.R and p.emb.
	CPUFaulted bool
}

// Errors of Make.
var (
	ErrConfig   = errors.New("invalid prompt-GEMM configuration")
	ErrOverflow = errors.New("scratch size overflows 64 bits")
)

// Make walks the buffers a prompt pass allocates for c, in allocation order,
// and hands each to alloc; it stops at alloc's first error. It is the one
// place the buffer sizes are derived: Buffers and Need both call it.
func Make(c Config, alloc func(Buffer) error) error {
	if c.C <= 0 || c.D <= 0 || c.TM <= 0 {
		return fmt.Errorf("scratch: C %d, d %d, TM %d: %w", c.C, c.D, c.TM, ErrConfig)
	}
	r, err := mul(uint64(c.C), 4, uint64(c.D), FloatBytes)
	if err != nil {
		return err
	}
	emb, err := mul(uint64(c.C), uint64(c.D), FloatBytes)
	if err != nil {
		return err
	}
	rows, err := mul(maxRows(c.C, c.TM), uint64(c.RowBytes))
	if err != nil {
		return err
	}
	for _, b := range []Buffer{
		{Name: "R", Bytes: r, Source: "audit §2", CPUFaulted: true},
		{Name: "emb", Bytes: emb, Source: "audit §2", CPUFaulted: true},
		{Name: "rows", Bytes: rows, Source: "model"},
	} {
		if err := alloc(b); err != nil {
			return err
		}
	}
	return nil
}

// maxRows is the GEMM's row count rounded up to whole TM-row tiles, for
// c, tm > 0. This is where the audit's hard-coded 16 desynchronised the two
// paths. It counts in uint64 as ceil(c / tm) × tm, so that no c or tm an
// int can hold overflows it (c + tm − 1 would, for tm near MaxInt).
func maxRows(c, tm int) uint64 {
	tiles := (uint64(c) + uint64(tm) - 1) / uint64(tm)
	return tiles * uint64(tm)
}

// Buffers is the sizing path: the buffers Make allocates for c.
func Buffers(c Config) ([]Buffer, error) {
	var out []Buffer
	err := Make(c, func(b Buffer) error { out = append(out, b); return nil })
	return out, err
}

// Need is the planning path: the bytes Make would allocate for c, by running
// Make in measure mode.
func Need(c Config) (arena.Bytes, error) {
	return sum(c, func(Buffer) bool { return true })
}

// CPUFaulted returns p.R + p.emb, the part of the scratch the CPU writes:
// C × (4·d + d) × 4 B.
func CPUFaulted(c Config) (arena.Bytes, error) {
	return sum(c, func(b Buffer) bool { return b.CPUFaulted })
}

// sum adds the sizes of the buffers Make lists for c that keep selects.
func sum(c Config, keep func(Buffer) bool) (arena.Bytes, error) {
	var total arena.Bytes
	err := Make(c, func(b Buffer) error {
		if !keep(b) {
			return nil
		}
		s, carry := bits.Add64(uint64(total), uint64(b.Bytes), 0)
		if carry != 0 {
			return fmt.Errorf("scratch: total after %s: %w", b.Name, ErrOverflow)
		}
		total = arena.Bytes(s)
		return nil
	})
	return total, err
}

// mul multiplies sizes, failing on overflow.
func mul(xs ...uint64) (arena.Bytes, error) {
	p := uint64(1)
	for _, x := range xs {
		hi, lo := bits.Mul64(p, x)
		if hi != 0 {
			return 0, fmt.Errorf("scratch: product of %v: %w", xs, ErrOverflow)
		}
		p = lo
	}
	return arena.Bytes(p), nil
}
