package rules

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/strataspec/strataspec/engine/finding"
)

// Every rule has moved to an analyzer family; the registry's selection is
// tested over rules registered by this test binary alone.
func init() {
	none := func(*Context) ([]finding.Finding, error) { return nil, nil }
	for _, name := range []string{"fam.b", "fam.a", "other"} {
		Register(Rule{Name: name, Check: none})
	}
}

func TestSelect(t *testing.T) {
	for _, tt := range []struct {
		list string
		want string // comma-joined names, or an error substring prefixed with "error:"
	}{
		{"fam", "fam.a,fam.b"},
		{"fam.b,fam.a", "fam.a,fam.b"},
		{"fam.a, fam", "fam.a,fam.b"},
		{"fam.a", "fam.a"},
		{"fa", `error:unknown rule "fa"`},
		{"nosuch", `error:unknown rule "nosuch"`},
	} {
		rs, err := Select(tt.list)
		var got string
		if err != nil {
			got = "error:" + err.Error()
		} else {
			var names []string
			for _, r := range rs {
				names = append(names, r.Name)
			}
			got = strings.Join(names, ",")
		}
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("Select(%q) = %q; want %q", tt.list, got, tt.want)
		}
	}
	all, err := Select("")
	if err != nil || len(all) != len(Names()) {
		t.Errorf("Select(\"\") = %d rules, %v; want all %d", len(all), err, len(Names()))
	}
}

func TestMemo(t *testing.T) {
	c := &Context{}
	calls := 0
	load := func() (any, error) { calls++; return 42, nil }
	for range 3 {
		v, err := c.Memo("k", load)
		if v != 42 || err != nil {
			t.Fatalf("Memo(k) = %v, %v; want 42, nil", v, err)
		}
	}
	if calls != 1 {
		t.Errorf("Memo computed %d times; want once", calls)
	}
	// An error is memoized too: a missing file is reported once, not re-read.
	boom := errors.New("boom")
	c.Memo("e", func() (any, error) { return nil, boom })
	if _, err := c.Memo("e", load); err != boom {
		t.Errorf("Memo(e) second call = %v; want the first call's error", err)
	}
}

// TestMemoNested: a loader may load another key (the TF set loads the plan
// check); with one lock held across the computation this deadlocked.
func TestMemoNested(t *testing.T) {
	c := &Context{}
	v, err := c.Memo("outer", func() (any, error) {
		inner, err := c.Memo("inner", func() (any, error) { return 1, nil })
		return inner.(int) + 1, err
	})
	if v != 2 || err != nil {
		t.Errorf("nested Memo = %v, %v; want 2, nil", v, err)
	}
}

func TestMemoConcurrent(t *testing.T) {
	c := &Context{}
	var mu sync.Mutex
	calls := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Memo("k", func() (any, error) {
				mu.Lock()
				calls++
				mu.Unlock()
				return nil, nil
			})
		}()
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("concurrent Memo computed %d times; want once", calls)
	}
}
