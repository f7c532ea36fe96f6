// Package facts is the audit's facts layer: every input of a snapshot is
// read once, by one reader, into a typed fact, and rules read facts, never
// files. A fact is named by a Key whose type parameter is the fact's Go
// type, so a rule gets a *plan.Doc from the plan key and cannot get anything
// else: no string keys, no type assertions at the call site.
//
// Readers are registered by NewKey, at package initialisation, in this
// package (one file per kind of input) or in the package that owns the
// input's format. A Set computes each fact on first use and keeps it; it is
// safe for use by concurrent rules.
package facts

import (
	"sync"

	"github.com/strataspec/strataspec/engine/archive"
)

// Kind is any fact key, whatever its type: what an analyzer lists among the
// facts it needs.
type Kind interface {
	Name() string
	kind() // only this package's Key implements Kind
}

// Key names a fact of type T and says how to read it from a Set.
type Key[T any] struct {
	name string
	read func(*Set) (T, error)
}

// NewKey returns a key for a fact of type T named name, read by read.
func NewKey[T any](name string, read func(*Set) (T, error)) *Key[T] {
	if name == "" || read == nil {
		panic("facts: NewKey with an empty name or a nil reader")
	}
	return &Key[T]{name: name, read: read}
}

// Name returns the fact's name, e.g. "plan".
func (k *Key[T]) Name() string { return k.name }
func (k *Key[T]) kind()        {}

// Set holds the facts of one snapshot, each computed once.
type Set struct {
	// Snap is the loaded snapshot every reader starts from.
	Snap *archive.Snapshot

	mu    sync.Mutex
	cache map[Kind]*entry
}

type entry struct {
	once sync.Once
	v    any
	err  error
}

// New returns the facts of a loaded snapshot.
func New(snap *archive.Snapshot) *Set { return &Set{Snap: snap, cache: map[Kind]*entry{}} }

// Get returns the fact k of s, reading it on first use. A reader may Get
// other facts; one that Gets itself deadlocks, as sync.Once calling itself
// does.
func Get[T any](s *Set, k *Key[T]) (T, error) {
	s.mu.Lock()
	if s.cache == nil {
		s.cache = map[Kind]*entry{}
	}
	e, ok := s.cache[k]
	if !ok {
		e = &entry{}
		s.cache[k] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		e.v, e.err = k.read(s)
	})
	if e.err != nil {
		var zero T
		return zero, e.err
	}
	v, _ := e.v.(T) // a nil value of an interface type asserts to the zero T
	return v, nil
}

// Put sets the fact k of s to v, as if it had been read: for a caller that
// holds the fact already (a context whose metrics were parsed, or built by
// hand in a test). A fact already read or put is kept.
func Put[T any](s *Set, k *Key[T], v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[Kind]*entry{}
	}
	if _, ok := s.cache[k]; ok {
		return
	}
	e := &entry{v: v}
	e.once.Do(func() {})
	s.cache[k] = e
}
