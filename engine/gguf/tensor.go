package gguf

import (
	"fmt"
	"math/bits"
)

// MaxDims is the most dimensions a tensor may have (GGML_MAX_DIMS).
const MaxDims = 4

// TensorType is a ggml tensor element type (ggml_type).
type TensorType uint32

// typeTraits gives, for each ggml type this package knows, its name, the
// number of elements in one block and the bytes one block takes. Removed type
// numbers (4, 5, 31–33, 36–38) are absent. Strata's own quantisations are not
// ggml types; a tensor of an unknown type reads fine but has no known size.
var typeTraits = map[TensorType]struct {
	name  string
	block uint64
	size  uint64
}{
	0: {"F32", 1, 4}, 1: {"F16", 1, 2},
	2: {"Q4_0", 32, 18}, 3: {"Q4_1", 32, 20}, 6: {"Q5_0", 32, 22}, 7: {"Q5_1", 32, 24},
	8: {"Q8_0", 32, 34}, 9: {"Q8_1", 32, 36},
	10: {"Q2_K", 256, 84}, 11: {"Q3_K", 256, 110}, 12: {"Q4_K", 256, 144},
	13: {"Q5_K", 256, 176}, 14: {"Q6_K", 256, 210}, 15: {"Q8_K", 256, 292},
	16: {"IQ2_XXS", 256, 66}, 17: {"IQ2_XS", 256, 74}, 18: {"IQ3_XXS", 256, 98},
	19: {"IQ1_S", 256, 50}, 20: {"IQ4_NL", 32, 18}, 21: {"IQ3_S", 256, 110},
	22: {"IQ2_S", 256, 82}, 23: {"IQ4_XS", 256, 136},
	24: {"I8", 1, 1}, 25: {"I16", 1, 2}, 26: {"I32", 1, 4}, 27: {"I64", 1, 8}, 28: {"F64", 1, 8},
	29: {"IQ1_M", 256, 56}, 30: {"BF16", 1, 2},
	34: {"TQ1_0", 256, 54}, 35: {"TQ2_0", 256, 66}, 39: {"MXFP4", 32, 17},
}

// Tensor types used in tests and fixtures.
const (
	TensorF32  TensorType = 0
	TensorF16  TensorType = 1
	TensorQ8_0 TensorType = 8
	TensorQ4_K TensorType = 12
)

// String returns the type's name as ggml spells it (F32, Q4_K, …).
func (t TensorType) String() string {
	if tr, ok := typeTraits[t]; ok {
		return tr.name
	}
	return fmt.Sprintf("TensorType(%d)", uint32(t))
}

// Known reports whether the type's block layout is known, so that tensor
// sizes of this type can be computed.
func (t TensorType) Known() bool {
	_, ok := typeTraits[t]
	return ok
}

// TensorInfo is one tensor's entry in the header.
type TensorInfo struct {
	Name   string
	Dims   []uint64   // ne[0] first, as stored
	Type   TensorType // element type
	Offset uint64     // offset of its data, relative to File.DataOffset
}

// Elements returns the number of elements; ok is false if it overflows.
func (t TensorInfo) Elements() (n uint64, ok bool) {
	n = 1
	for _, d := range t.Dims {
		hi, lo := bits.Mul64(n, d)
		if hi != 0 {
			return 0, false
		}
		n = lo
	}
	return n, true
}

// Size returns the bytes the tensor's data takes. ok is false if the type is
// unknown, the first dimension is not a whole number of blocks, or the size
// overflows.
func (t TensorInfo) Size() (uint64, bool) {
	tr, known := typeTraits[t.Type]
	if !known {
		return 0, false
	}
	n, ok := t.Elements()
	if !ok || (len(t.Dims) > 0 && t.Dims[0]%tr.block != 0) {
		return 0, false
	}
	hi, lo := bits.Mul64(n/tr.block, tr.size)
	if hi != 0 || lo > 1<<62 {
		return 0, false
	}
	return lo, true
}
