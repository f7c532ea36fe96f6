package facts

import (
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
)

// TestPut: a fact put is read as put, its reader never called; a fact
// already read is kept.
func TestPut(t *testing.T) {
	reads := 0
	k := NewKey("n", func(*Set) (int, error) { reads++; return 1, nil })
	s := New(&archive.Snapshot{})
	Put(s, k, 7)
	if v, err := Get(s, k); v != 7 || err != nil || reads != 0 {
		t.Errorf("Get after Put(7) = %d, %v (%d reads); want 7 and no read", v, err, reads)
	}
	s = New(&archive.Snapshot{})
	if v, _ := Get(s, k); v != 1 {
		t.Fatalf("Get = %d; want 1", v)
	}
	Put(s, k, 9)
	if v, _ := Get(s, k); v != 1 || reads != 1 {
		t.Errorf("Get after a read and Put(9) = %d (%d reads); want the value read, 1, read once", v, reads)
	}
}
