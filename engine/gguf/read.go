package gguf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// maxArrayDepth bounds the nesting of arrays of arrays. The format allows any
// depth; no real file nests more than once.
const maxArrayDepth = 4

// Minimum encoded sizes, used to bound counts before allocating.
const (
	minKVSize     = 8 + 4 + 1     // empty key, type, one-byte value
	minTensorSize = 8 + 4 + 4 + 8 // empty name, n_dims = 0, type, offset
)

// Parse reads a GGUF header from data; name is used in errors.
func Parse(name string, data []byte) (*File, error) {
	return Read(name, bytes.NewReader(data), int64(len(data)))
}

// Read reads the header of a GGUF file of the given size from r; name is
// used in errors. Errors about the content are *FormatError.
func Read(name string, r io.ReaderAt, size int64) (*File, error) {
	d := &decoder{name: name, r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10), size: size}
	f := &File{Name: name, Size: size}
	d.header(f)
	if d.err != nil {
		return nil, d.err
	}
	return f, nil
}

// decoder reads little-endian values, tracking the offset. The first error
// sticks; later reads return zero values.
type decoder struct {
	name string
	r    *bufio.Reader
	off  int64
	size int64
	err  error
	buf  [8]byte

	scratch []byte // reused for short strings
}

func (d *decoder) failf(at int64, format string, args ...any) {
	if d.err == nil {
		d.err = &FormatError{File: d.name, Offset: at, Msg: fmt.Sprintf(format, args...)}
	}
}

func (d *decoder) remaining() int64 { return d.size - d.off }

// read fills p, or fails naming what was being read.
func (d *decoder) read(p []byte, what string) bool {
	if d.err != nil {
		return false
	}
	if int64(len(p)) > d.remaining() {
		d.failf(d.off, "truncated: %s needs %d bytes, %d left", what, len(p), d.remaining())
		return false
	}
	if _, err := io.ReadFull(d.r, p); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			d.failf(d.off, "truncated reading %s", what)
		} else {
			d.err = fmt.Errorf("gguf: %s: offset %d: %w", d.name, d.off, err)
		}
		return false
	}
	d.off += int64(len(p))
	return true
}

func (d *decoder) u8(what string) uint8 {
	if !d.read(d.buf[:1], what) {
		return 0
	}
	return d.buf[0]
}

func (d *decoder) u16(what string) uint16 {
	if !d.read(d.buf[:2], what) {
		return 0
	}
	return binary.LittleEndian.Uint16(d.buf[:2])
}

func (d *decoder) u32(what string) uint32 {
	if !d.read(d.buf[:4], what) {
		return 0
	}
	return binary.LittleEndian.Uint32(d.buf[:4])
}

func (d *decoder) u64(what string) uint64 {
	if !d.read(d.buf[:8], what) {
		return 0
	}
	return binary.LittleEndian.Uint64(d.buf[:8])
}

// count reads a uint64 count of items of at least minSize bytes each and
// checks that that many fit in what is left of the file.
func (d *decoder) count(what string, minSize int64) int {
	at := d.off
	n := d.u64(what)
	if d.err != nil {
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	if n > uint64(d.remaining()/minSize) {
		d.failf(at, "%s %d too large: %d bytes left in file", what, n, d.remaining())
		return 0
	}
	return int(n)
}

func (d *decoder) str(what string) string {
	at := d.off
	n := d.u64(what + " length")
	if d.err != nil {
		return ""
	}
	if n > uint64(d.remaining()) {
		d.failf(at, "%s length %d exceeds the %d bytes left in file", what, n, d.remaining())
		return ""
	}
	if n <= 4096 { // the common case: read into a reused buffer, one allocation
		if uint64(cap(d.scratch)) < n {
			d.scratch = make([]byte, 4096)
		}
		b := d.scratch[:n]
		if !d.read(b, what) {
			return ""
		}
		return string(b)
	}
	// Read long strings in chunks so memory follows the bytes present.
	b := make([]byte, 0, min(n, 1<<20))
	for uint64(len(b)) < n {
		chunk := min(n-uint64(len(b)), 1<<20)
		start := len(b)
		b = append(b, make([]byte, chunk)...)
		if !d.read(b[start:], what) {
			return ""
		}
	}
	return string(b)
}

func (d *decoder) header(f *File) {
	var magic [4]byte
	if !d.read(magic[:], "magic") {
		return
	}
	if string(magic[:]) != Magic {
		d.failf(0, "not a GGUF file (magic %q)", magic[:])
		return
	}
	at := d.off
	f.Version = d.u32("version")
	if d.err != nil {
		return
	}
	switch f.Version {
	case 2, 3:
	default:
		if f.Version>>24 != 0 && f.Version&0xff == 0 {
			d.failf(at, "version %#x: big-endian files are not supported", f.Version)
		} else {
			d.failf(at, "unsupported version %d (want 2 or 3)", f.Version)
		}
		return
	}
	nTensors := d.count("tensor count", minTensorSize)
	nKV := d.count("metadata count", minKVSize)
	if d.err != nil {
		return
	}
	f.KV = make([]KV, 0, prealloc(nKV))
	seen := make(map[string]bool, prealloc(nKV))
	for i := 0; i < nKV && d.err == nil; i++ {
		at := d.off
		key := d.str(fmt.Sprintf("metadata[%d] key", i))
		if d.err != nil {
			return
		}
		if !utf8.ValidString(key) {
			d.failf(at, "metadata[%d] key %q is not UTF-8", i, key)
			return
		}
		if seen[key] {
			d.failf(at, "duplicate metadata key %q", key)
			return
		}
		seen[key] = true
		tat := d.off
		t := ValueType(d.u32(key + " type"))
		v := d.value(key, t, tat, 0)
		f.KV = append(f.KV, KV{Key: key, Value: v})
	}
	if d.err != nil {
		return
	}
	f.Alignment = DefaultAlignment
	if v, ok := f.Get("general.alignment"); ok {
		a, isU32 := v.(uint32)
		if !isU32 || a == 0 || a&(a-1) != 0 {
			d.failf(d.off, "general.alignment %v is not a power of two uint32", v)
			return
		}
		f.Alignment = uint64(a)
	}
	f.Tensors = make([]TensorInfo, 0, prealloc(nTensors))
	names := make(map[string]bool, prealloc(nTensors))
	infoAt := make([]int64, 0, prealloc(nTensors)) // where each tensor info starts
	for i := 0; i < nTensors && d.err == nil; i++ {
		at := d.off
		t := TensorInfo{Name: d.str(fmt.Sprintf("tensor[%d] name", i))}
		nd := d.u32(t.Name + " n_dims")
		if d.err != nil {
			return
		}
		if nd > MaxDims {
			d.failf(at, "tensor %q has %d dimensions (max %d)", t.Name, nd, MaxDims)
			return
		}
		if names[t.Name] {
			d.failf(at, "duplicate tensor %q", t.Name)
			return
		}
		names[t.Name] = true
		t.Dims = make([]uint64, nd)
		for j := range t.Dims {
			t.Dims[j] = d.u64(t.Name + " dimension")
		}
		t.Type = TensorType(d.u32(t.Name + " type"))
		t.Offset = d.u64(t.Name + " offset")
		if d.err != nil {
			return
		}
		if _, ok := t.Elements(); !ok {
			d.failf(at, "tensor %q: element count overflows (dims %v)", t.Name, t.Dims)
			return
		}
		if t.Offset%f.Alignment != 0 {
			d.failf(at, "tensor %q: data offset %d not aligned to %d", t.Name, t.Offset, f.Alignment)
			return
		}
		f.Tensors = append(f.Tensors, t)
		infoAt = append(infoAt, at)
	}
	if d.err != nil {
		return
	}
	a := int64(f.Alignment)
	f.DataOffset = (d.off + a - 1) / a * a
	for i, t := range f.Tensors {
		size, ok := t.Size()
		if !ok {
			if t.Type.Known() {
				d.failf(infoAt[i], "tensor %q: dims %v are not whole %s blocks", t.Name, t.Dims, t.Type)
				return
			}
			continue // unknown type: the size cannot be checked
		}
		end := uint64(f.DataOffset) + t.Offset + size // each term < 2^62
		if t.Offset > uint64(f.Size) || end > uint64(f.Size) {
			d.failf(infoAt[i], "truncated: tensor %q data [%d, %d) past end of file (%d bytes)",
				t.Name, uint64(f.DataOffset)+t.Offset, end, f.Size)
			return
		}
	}
}

// value reads one value of type t; at is where its type tag started.
func (d *decoder) value(key string, t ValueType, at int64, depth int) any {
	switch t {
	case TypeUint8:
		return d.u8(key)
	case TypeInt8:
		return int8(d.u8(key))
	case TypeUint16:
		return d.u16(key)
	case TypeInt16:
		return int16(d.u16(key))
	case TypeUint32:
		return d.u32(key)
	case TypeInt32:
		return int32(d.u32(key))
	case TypeFloat32:
		return math.Float32frombits(d.u32(key))
	case TypeBool:
		return d.boolean(key)
	case TypeString:
		return d.str(key)
	case TypeUint64:
		return d.u64(key)
	case TypeInt64:
		return int64(d.u64(key))
	case TypeFloat64:
		return math.Float64frombits(d.u64(key))
	case TypeArray:
		if depth >= maxArrayDepth {
			d.failf(at, "%s: arrays nested deeper than %d", key, maxArrayDepth)
			return nil
		}
		return d.array(key, depth)
	}
	d.failf(at, "%s: unknown value type %d", key, uint32(t))
	return nil
}

func (d *decoder) boolean(key string) bool {
	at := d.off
	b := d.u8(key)
	if b > 1 {
		d.failf(at, "%s: bool value %d is neither 0 nor 1", key, b)
	}
	return b == 1
}

func (d *decoder) array(key string, depth int) any {
	at := d.off
	et := ValueType(d.u32(key + " element type"))
	if d.err != nil {
		return nil
	}
	var minSize int64
	switch et {
	case TypeUint8, TypeInt8, TypeBool:
		minSize = 1
	case TypeUint16, TypeInt16:
		minSize = 2
	case TypeUint32, TypeInt32, TypeFloat32:
		minSize = 4
	case TypeUint64, TypeInt64, TypeFloat64, TypeString:
		minSize = 8
	case TypeArray:
		minSize = 12
	default:
		d.failf(at, "%s: unknown array element type %d", key, uint32(et))
		return nil
	}
	n := d.count(key+" array count", minSize)
	if d.err != nil {
		return nil
	}
	switch et {
	case TypeUint8:
		return readN(d, n, func() uint8 { return d.u8(key) })
	case TypeInt8:
		return readN(d, n, func() int8 { return int8(d.u8(key)) })
	case TypeUint16:
		return readN(d, n, func() uint16 { return d.u16(key) })
	case TypeInt16:
		return readN(d, n, func() int16 { return int16(d.u16(key)) })
	case TypeUint32:
		return readN(d, n, func() uint32 { return d.u32(key) })
	case TypeInt32:
		return readN(d, n, func() int32 { return int32(d.u32(key)) })
	case TypeFloat32:
		return readN(d, n, func() float32 { return math.Float32frombits(d.u32(key)) })
	case TypeBool:
		return readN(d, n, func() bool { return d.boolean(key) })
	case TypeString:
		return readN(d, n, func() string { return d.str(key) })
	case TypeUint64:
		return readN(d, n, func() uint64 { return d.u64(key) })
	case TypeInt64:
		return readN(d, n, func() int64 { return int64(d.u64(key)) })
	case TypeFloat64:
		return readN(d, n, func() float64 { return math.Float64frombits(d.u64(key)) })
	}
	// TypeArray: an array of arrays.
	return readN(d, n, func() any {
		at := d.off
		return d.value(key, TypeArray, at, depth+1)
	})
}

// readN reads n items. The slice grows as items are read rather than being
// allocated up front, so memory follows the bytes actually present even when
// a count is corrupt but still within the file size.
func readN[T any](d *decoder, n int, next func() T) []T {
	out := make([]T, 0, prealloc(n))
	for range n {
		v := next()
		if d.err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// prealloc caps an up-front allocation for n items.
func prealloc(n int) int { return min(n, 4096) }
