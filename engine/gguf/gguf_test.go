package gguf

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleKV has one pair of every value type, arrays of arrays included.
var sampleKV = []KV{
	{"general.architecture", "qwen35"},
	{"u8", uint8(200)}, {"i8", int8(-7)}, {"u16", uint16(65535)}, {"i16", int16(-300)},
	{"u32", uint32(1 << 31)}, {"i32", int32(-1)}, {"f32", float32(0.5)},
	{"t", true}, {"f", false}, {"u64", uint64(1 << 63)}, {"i64", int64(-1 << 62)},
	{"f64", math.Pi}, {"empty", ""},
	{"strings", []string{"a", "", "ü", "<|im_start|>"}},
	{"i32s", []int32{1, -2, 3}}, {"bools", []bool{true, false}},
	{"nested", []any{[]uint8{1, 2}, []string{"x"}, []any{[]int64{-5}}}},
	{"empty array", []float64{}},
}

var sampleTensors = []TensorInfo{
	{Name: "token_embd.weight", Dims: []uint64{64, 3}, Type: TensorF32},
	{Name: "blk.0.ffn_down.weight", Dims: []uint64{256, 2}, Type: TensorQ4_K},
	{Name: "scalar", Dims: nil, Type: TensorF16},
}

func mustEncode(t testing.TB, version uint32, kv []KV, tensors []TensorInfo) []byte {
	t.Helper()
	data, err := Encode(version, kv, tensors)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return data
}

func TestRoundTrip(t *testing.T) {
	for _, version := range []uint32{2, 3} {
		data := mustEncode(t, version, sampleKV, sampleTensors)
		f, err := Parse("sample.gguf", data)
		if err != nil {
			t.Fatalf("v%d: Parse: %v", version, err)
		}
		if f.Version != version {
			t.Errorf("v%d: Version = %d", version, f.Version)
		}
		if diff := cmp.Diff(sampleKV, f.KV); diff != "" {
			t.Errorf("v%d: KV mismatch (-want +got):\n%s", version, diff)
		}
		if len(f.Tensors) != len(sampleTensors) {
			t.Fatalf("v%d: %d tensors; want %d", version, len(f.Tensors), len(sampleTensors))
		}
		wantOffsets := []uint64{0, 768, 768 + 288}
		for i, ti := range f.Tensors {
			want := sampleTensors[i]
			if ti.Name != want.Name || ti.Type != want.Type || !cmp.Equal(ti.Dims, want.Dims, cmp.Comparer(func(a, b []uint64) bool { return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b)) })) {
				t.Errorf("v%d: tensor %d = %+v; want %+v", version, i, ti, want)
			}
			if ti.Offset != wantOffsets[i] {
				t.Errorf("v%d: tensor %q offset = %d; want %d", version, ti.Name, ti.Offset, wantOffsets[i])
			}
		}
		if f.DataOffset%DefaultAlignment != 0 || f.Size != int64(len(data)) {
			t.Errorf("v%d: DataOffset %d Size %d (file %d bytes)", version, f.DataOffset, f.Size, len(data))
		}
	}
}

func TestTensorSize(t *testing.T) {
	tests := []struct {
		t    TensorInfo
		size uint64
		ok   bool
	}{
		{TensorInfo{Dims: []uint64{64, 3}, Type: TensorF32}, 768, true},
		{TensorInfo{Dims: []uint64{256, 2}, Type: TensorQ4_K}, 288, true},
		{TensorInfo{Dims: []uint64{32}, Type: TensorQ8_0}, 34, true},
		{TensorInfo{Dims: nil, Type: TensorF16}, 2, true},
		{TensorInfo{Dims: []uint64{100}, Type: TensorQ4_K}, 0, false},             // not whole blocks
		{TensorInfo{Dims: []uint64{256}, Type: 1000}, 0, false},                   // unknown type
		{TensorInfo{Dims: []uint64{1 << 40, 1 << 40}, Type: TensorF32}, 0, false}, // overflow
	}
	for _, tt := range tests {
		size, ok := tt.t.Size()
		if size != tt.size || ok != tt.ok {
			t.Errorf("Size(%v %v) = %d, %v; want %d, %v", tt.t.Dims, tt.t.Type, size, ok, tt.size, tt.ok)
		}
	}
}

func TestAccessors(t *testing.T) {
	f, err := Parse("sample.gguf", mustEncode(t, 3, sampleKV, nil))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := f.String("general.architecture"); !ok || s != "qwen35" {
		t.Errorf("String(general.architecture) = %q, %v", s, ok)
	}
	if _, ok := f.String("u8"); ok {
		t.Errorf("String(u8) ok; want not a string")
	}
	for key, want := range map[string]int64{"u8": 200, "i8": -7, "u16": 65535, "i32": -1, "i64": -1 << 62} {
		if n, ok := f.Int(key); !ok || n != want {
			t.Errorf("Int(%q) = %d, %v; want %d", key, n, ok, want)
		}
	}
	if _, ok := f.Int("u64"); ok {
		t.Errorf("Int(u64 = 1<<63) ok; want overflow")
	}
	if got, ok := f.Ints("i32s"); !ok || !cmp.Equal(got, []int64{1, -2, 3}) {
		t.Errorf("Ints(i32s) = %v, %v", got, ok)
	}
	if got, ok := f.Strings("strings"); !ok || len(got) != 4 {
		t.Errorf("Strings(strings) = %q, %v", got, ok)
	}
}

// patch returns a copy of data with a little-endian value written at off.
func patch(data []byte, off int, v uint64, width int) []byte {
	out := append([]byte(nil), data...)
	switch width {
	case 4:
		binary.LittleEndian.PutUint32(out[off:], uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(out[off:], v)
	}
	return out
}

func patchByte(data []byte, off int, b byte) []byte {
	out := append([]byte(nil), data...)
	out[off] = b
	return out
}

func TestMalformed(t *testing.T) {
	small := mustEncode(t, 3, []KV{{"k", "value"}}, nil)
	// Layout of small: magic 0, version 4, tensors 8, kv count 16, key len 24,
	// key 32, type 33, string len 37, string 45.
	withTensor := mustEncode(t, 3, []KV{{"a", uint32(1)}}, []TensorInfo{{Name: "w", Dims: []uint64{8}, Type: TensorF32}})
	// Tensor info of withTensor starts at 24+8+1+4+4 = 41: name len 41, name 49,
	// n_dims 50, dim 54, type 62, offset 66.
	tests := []struct {
		name string
		data []byte
		want string // substring of the error
		off  int64
	}{
		{"empty", nil, "truncated", 0},
		{"bad magic", append([]byte("GGML"), small[4:]...), "not a GGUF file", 0},
		{"version 1", patch(small, 4, 1, 4), "unsupported version 1", 4},
		{"version 4", patch(small, 4, 4, 4), "unsupported version 4", 4},
		{"big-endian", patch(small, 4, 3<<24, 4), "big-endian", 4},
		{"huge tensor count", patch(small, 8, 1<<60, 8), "tensor count 1152921504606846976 too large", 8},
		{"huge kv count", patch(small, 16, 1<<40, 8), "metadata count 1099511627776 too large", 16},
		{"huge key length", patch(small, 24, math.MaxUint64, 8), "exceeds", 24},
		{"huge string length", patch(small, 37, 1<<50, 8), "exceeds", 37},
		{"string length one past end", patch(small, 37, 6, 8), "exceeds", 37},
		{"unknown value type", patch(small, 33, 13, 4), "unknown value type 13", 33},
		{"truncated value", small[:len(small)-1], "exceeds", 37},
		{"bad bool", patchByte(mustEncode(t, 3, []KV{{"b", true}}, nil), 37, 2), "neither 0 nor 1", 37},
		{"duplicate key", mustEncode(t, 3, []KV{{"k", "a"}, {"k", "b"}}, nil), `duplicate metadata key "k"`, 46},
		{"bad alignment", patch(mustEncode(t, 3, []KV{{"general.alignment", uint32(32)}}, nil), 53, 3, 4), "not a power of two", 57},
		{"too many dims", patch(withTensor, 50, 5, 4), "5 dimensions", 41},
		{"misaligned offset", patch(withTensor, 66, 4, 8), "not aligned", 41},
		{"tensor past end", withTensor[:len(withTensor)-1], "past end of file", 41},
		{"not whole blocks", patch(mustEncode(t, 3, nil, []TensorInfo{{Name: "q", Dims: []uint64{256}, Type: TensorQ4_K}}), 37, 100, 8), "not whole Q4_K blocks", 24},
		{"unknown element type", patch(mustEncode(t, 3, []KV{{"a", []uint8{1}}}, nil), 37, 42, 4), "unknown array element type 42", 37},
		{"huge array count", patch(mustEncode(t, 3, []KV{{"a", []uint32{1}}}, nil), 41, 1<<33, 8), "array count 8589934592 too large", 41},
		{"deep nesting", mustEncode(t, 3, []KV{{"a", []any{[]any{[]any{[]any{[]any{[]uint8{}}}}}}}}, nil), "nested deeper", -1},
	}
	for _, tt := range tests {
		f, err := Parse("bad.gguf", tt.data)
		if err == nil {
			t.Errorf("%s: Parse = %+v, nil; want error containing %q", tt.name, f, tt.want)
			continue
		}
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: Parse error %v is %T; want *FormatError", tt.name, err, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "bad.gguf: offset ") {
			t.Errorf("%s: Parse error = %q; want bad.gguf: offset …%s…", tt.name, err, tt.want)
		}
		if tt.off >= 0 && fe.Offset != tt.off {
			t.Errorf("%s: error offset = %d; want %d (%v)", tt.name, fe.Offset, tt.off, err)
		}
	}
}

// TestTruncations parses every prefix of a file holding every value type and
// tensors: each must fail with a FormatError inside the prefix, never panic.
func TestTruncations(t *testing.T) {
	data := mustEncode(t, 3, sampleKV, sampleTensors)
	for n := 0; n < len(data); n++ {
		_, err := Parse("cut.gguf", data[:n])
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("Parse(first %d of %d bytes) error = %v; want *FormatError", n, len(data), err)
		}
		if fe.Offset < 0 || fe.Offset > int64(n) {
			t.Fatalf("Parse(first %d bytes): offset %d outside the file", n, fe.Offset)
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	tests := []struct {
		name    string
		version uint32
		kv      []KV
		tensors []TensorInfo
	}{
		{"version 1", 1, nil, nil},
		{"unsupported type", 3, []KV{{"x", 3}}, nil},
		{"unknown tensor type", 3, nil, []TensorInfo{{Name: "t", Dims: []uint64{1}, Type: 99}}},
		{"array of non-slices", 3, []KV{{"x", []any{"s"}}}, nil},
		{"bad alignment", 3, []KV{{"general.alignment", uint32(0)}}, nil},
	}
	for _, tt := range tests {
		if _, err := Encode(tt.version, tt.kv, tt.tensors); err == nil {
			t.Errorf("Encode(%s) = nil error; want an error", tt.name)
		}
	}
}

// open reads the header of the GGUF file at path: tests open files
// themselves; the package reads from an io.ReaderAt (Read) or bytes (Parse).
func open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	return Read(path, fh, st.Size())
}
