// Package gguf reads the header of a GGUF file (the llama.cpp model format):
// its metadata key/value pairs and tensor infos, with strict bounds, and
// writes small vocab-only GGUF files for tests and fixtures. Vocab reads the
// tokenizer out of the metadata and detokenizes byte-level BPE (GPT-2 style)
// and SentencePiece vocabularies.
//
// Only little-endian files of versions 2 and 3 are read. Every length and
// count in a file is checked against the bytes that remain before anything is
// allocated, so a corrupt, truncated or hostile file yields a *FormatError
// naming the file and offset, never a panic or a huge allocation.
package gguf

import (
	"fmt"
	"sort"

	"github.com/strataspec/strataspec/engine/finding"
)

// Magic is the four bytes every GGUF file starts with.
const Magic = "GGUF"

// DefaultAlignment is the tensor data alignment when general.alignment is absent.
const DefaultAlignment = 32

// ValueType is the type tag of a metadata value.
type ValueType uint32

// Metadata value types, as numbered by the GGUF specification.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

var valueTypeNames = [...]string{
	TypeUint8: "uint8", TypeInt8: "int8", TypeUint16: "uint16", TypeInt16: "int16",
	TypeUint32: "uint32", TypeInt32: "int32", TypeFloat32: "float32", TypeBool: "bool",
	TypeString: "string", TypeArray: "array", TypeUint64: "uint64", TypeInt64: "int64",
	TypeFloat64: "float64",
}

// String returns the type's name as the GGUF specification spells it.
func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("ValueType(%d)", uint32(t))
}

// KV is one metadata pair. Value holds the Go type of its GGUF type: uint8,
// int8, uint16, int16, uint32, int32, float32, bool, string, uint64, int64 or
// float64 for scalars; a slice of one of those for an array ([]string for an
// array of strings); []any, each element itself such a slice, for an array of
// arrays.
type KV struct {
	Key   string
	Value any
}

// File is the parsed header of a GGUF file. Tensor data is not read.
type File struct {
	Name       string       // the file name used in errors
	Version    uint32       // 2 or 3
	KV         []KV         // metadata in file order
	Tensors    []TensorInfo // tensor infos in file order
	Alignment  uint64       // tensor data alignment
	DataOffset int64        // offset of the tensor data section
	Size       int64        // size of the file in bytes
}

// FormatError is a malformed GGUF file: what was wrong and where.
type FormatError struct {
	File   string
	Offset int64 // byte offset where the bad item starts
	Msg    string
}

// Pos returns the error's place: the file (a binary file has no lines;
// the byte offset is in the message).
func (e *FormatError) Pos() finding.Pos { return finding.Pos{File: e.File} }

// Error returns "file: offset N: message".
func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
}

// Get returns the metadata value for key.
func (f *File) Get(key string) (any, bool) {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Keys returns the metadata keys, sorted.
func (f *File) Keys() []string {
	keys := make([]string, len(f.KV))
	for i, kv := range f.KV {
		keys[i] = kv.Key
	}
	sort.Strings(keys)
	return keys
}

// String returns the string value for key; ok is false if it is absent or
// not a string.
func (f *File) String(key string) (s string, ok bool) {
	v, _ := f.Get(key)
	s, ok = v.(string)
	return s, ok
}

// Strings returns the array of strings for key.
func (f *File) Strings(key string) ([]string, bool) {
	v, _ := f.Get(key)
	s, ok := v.([]string)
	return s, ok
}

// Int returns an integer value for key, whatever its integer width. ok is
// false if the key is absent, not an integer, or does not fit an int64.
func (f *File) Int(key string) (int64, bool) {
	v, found := f.Get(key)
	if !found {
		return 0, false
	}
	return toInt(v)
}

// Ints returns an array of integers for key, whatever its integer width.
func (f *File) Ints(key string) ([]int64, bool) {
	v, found := f.Get(key)
	if !found {
		return nil, false
	}
	switch a := v.(type) {
	case []uint8:
		return convInts(a), true
	case []int8:
		return convInts(a), true
	case []uint16:
		return convInts(a), true
	case []int16:
		return convInts(a), true
	case []uint32:
		return convInts(a), true
	case []int32:
		return convInts(a), true
	case []int64:
		return convInts(a), true
	case []uint64:
		out := make([]int64, len(a))
		for i, x := range a {
			if x > 1<<63-1 {
				return nil, false
			}
			out[i] = int64(x)
		}
		return out, true
	}
	return nil, false
}

func convInts[T uint8 | int8 | uint16 | int16 | uint32 | int32 | int64](a []T) []int64 {
	out := make([]int64, len(a))
	for i, x := range a {
		out[i] = int64(x)
	}
	return out
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case uint8:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case int16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint64:
		if x > 1<<63-1 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

// Tensor returns the tensor info with the given name.
func (f *File) Tensor(name string) (TensorInfo, bool) {
	for _, t := range f.Tensors {
		if t.Name == name {
			return t, true
		}
	}
	return TensorInfo{}, false
}
