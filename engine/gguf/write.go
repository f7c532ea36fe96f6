package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// Encode builds a GGUF file of the given version (2 or 3) from metadata and
// tensor infos. Tensors are laid out in order, each at the next multiple of
// the alignment (general.alignment if kv sets it, else DefaultAlignment); the
// Offset field of the given infos is ignored and their data is zeros. With no
// tensors the result is a vocab-only file that ends after the metadata, as
// llama.cpp's vocab files do. Values must be of the Go types KV documents.
func Encode(version uint32, kv []KV, tensors []TensorInfo) ([]byte, error) {
	if version != 2 && version != 3 {
		return nil, fmt.Errorf("gguf: encode: unsupported version %d", version)
	}
	e := &encoder{}
	e.b.WriteString(Magic)
	e.u32(version)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kv)))
	align := uint64(DefaultAlignment)
	for _, p := range kv {
		if p.Key == "general.alignment" {
			a, ok := p.Value.(uint32)
			if !ok || a == 0 || a&(a-1) != 0 {
				return nil, fmt.Errorf("gguf: encode: general.alignment %v is not a power of two uint32", p.Value)
			}
			align = uint64(a)
		}
		e.str(p.Key)
		if err := e.value(p.Value, true); err != nil {
			return nil, fmt.Errorf("gguf: encode %s: %w", p.Key, err)
		}
	}
	var off uint64
	sizes := make([]uint64, len(tensors))
	for i, t := range tensors {
		size, ok := t.Size()
		if !ok {
			return nil, fmt.Errorf("gguf: encode tensor %q: size of %v %s unknown", t.Name, t.Dims, t.Type)
		}
		sizes[i] = size
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(off)
		off = (off + size + align - 1) / align * align
	}
	if len(tensors) > 0 {
		e.pad(align)
		for i, size := range sizes {
			e.b.Write(make([]byte, size))
			if i < len(sizes)-1 {
				e.pad(align)
			}
		}
	}
	return e.b.Bytes(), nil
}

// WriteFile encodes a version 3 file and writes it to path atomically
// (a temporary file in the same directory, then a rename).
func WriteFile(path string, kv []KV, tensors []TensorInfo) error {
	data, err := Encode(3, kv, tensors)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gguf-*")
	if err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("gguf: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("gguf: write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("gguf: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("gguf: %w", err)
	}
	return nil
}

type encoder struct{ b bytes.Buffer }

func (e *encoder) u32(v uint32) { e.b.Write(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *encoder) u64(v uint64) { e.b.Write(binary.LittleEndian.AppendUint64(nil, v)) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.b.WriteString(s) }

func (e *encoder) pad(align uint64) {
	for uint64(e.b.Len())%align != 0 {
		e.b.WriteByte(0)
	}
}

func (e *encoder) boolean(v bool) {
	if v {
		e.b.WriteByte(1)
	} else {
		e.b.WriteByte(0)
	}
}

// value writes v, preceded by its type tag if tagged.
func (e *encoder) value(v any, tagged bool) error {
	tag := func(t ValueType) {
		if tagged {
			e.u32(uint32(t))
		}
	}
	switch x := v.(type) {
	case uint8:
		tag(TypeUint8)
		e.b.WriteByte(x)
	case int8:
		tag(TypeInt8)
		e.b.WriteByte(uint8(x))
	case uint16:
		tag(TypeUint16)
		e.b.Write(binary.LittleEndian.AppendUint16(nil, x))
	case int16:
		tag(TypeInt16)
		e.b.Write(binary.LittleEndian.AppendUint16(nil, uint16(x)))
	case uint32:
		tag(TypeUint32)
		e.u32(x)
	case int32:
		tag(TypeInt32)
		e.u32(uint32(x))
	case float32:
		tag(TypeFloat32)
		e.u32(math.Float32bits(x))
	case bool:
		tag(TypeBool)
		e.boolean(x)
	case string:
		tag(TypeString)
		e.str(x)
	case uint64:
		tag(TypeUint64)
		e.u64(x)
	case int64:
		tag(TypeInt64)
		e.u64(uint64(x))
	case float64:
		tag(TypeFloat64)
		e.u64(math.Float64bits(x))
	case []uint8:
		return writeArray(e, tagged, TypeUint8, x)
	case []int8:
		return writeArray(e, tagged, TypeInt8, x)
	case []uint16:
		return writeArray(e, tagged, TypeUint16, x)
	case []int16:
		return writeArray(e, tagged, TypeInt16, x)
	case []uint32:
		return writeArray(e, tagged, TypeUint32, x)
	case []int32:
		return writeArray(e, tagged, TypeInt32, x)
	case []float32:
		return writeArray(e, tagged, TypeFloat32, x)
	case []bool:
		return writeArray(e, tagged, TypeBool, x)
	case []string:
		return writeArray(e, tagged, TypeString, x)
	case []uint64:
		return writeArray(e, tagged, TypeUint64, x)
	case []int64:
		return writeArray(e, tagged, TypeInt64, x)
	case []float64:
		return writeArray(e, tagged, TypeFloat64, x)
	case []any:
		return writeArray(e, tagged, TypeArray, x)
	default:
		return fmt.Errorf("unsupported value type %T", v)
	}
	return nil
}

func writeArray[T any](e *encoder, tagged bool, elem ValueType, items []T) error {
	if tagged {
		e.u32(uint32(TypeArray))
	}
	e.u32(uint32(elem))
	e.u64(uint64(len(items)))
	for i, it := range items {
		if elem == TypeArray {
			if err := checkArray(any(it)); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
			// The inner array carries its element type and count but no
			// type tag of its own.
			if err := e.value(it, false); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
			continue
		}
		if err := e.value(it, false); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// checkArray reports an error unless v is a slice value writeArray accepts.
func checkArray(v any) error {
	switch v.(type) {
	case []uint8, []int8, []uint16, []int16, []uint32, []int32, []float32, []bool,
		[]string, []uint64, []int64, []float64, []any:
		return nil
	}
	return fmt.Errorf("element of an array of arrays is %T, not a slice", v)
}
