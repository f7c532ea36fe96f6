package finding

import (
	"errors"
	"fmt"
	"testing"
)

type posErr struct{ p Pos }

func (e posErr) Error() string { return e.p.String() + ": bad" }
func (e posErr) Pos() Pos      { return e.p }

func TestPosString(t *testing.T) {
	for _, tt := range []struct {
		p    Pos
		want string
	}{
		{Pos{File: "a.json"}, "a.json"},
		{Pos{File: "a.json", Line: 3}, "a.json:3"},
		{Pos{File: "a.json", Line: 3, Col: 7}, "a.json:3:7"},
		{Pos{File: "a.json", Line: 3, Col: 7, Path: "runs[0].name"}, "a.json:3:7: runs[0].name"},
		{Pos{File: "a.json", Col: 7, Path: "runs"}, "a.json: runs"}, // a column without a line is not printed
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%#v.String() = %q; want %q", tt.p, got, tt.want)
		}
	}
}

func TestPosOf(t *testing.T) {
	p := Pos{File: "PLAN.claims", Line: 9}
	for _, tt := range []struct {
		err  error
		want Pos
		ok   bool
	}{
		{posErr{p}, p, true},
		{fmt.Errorf("loading: %w", posErr{p}), p, true},
		{errors.Join(errors.New("other"), posErr{p}), p, true},
		{errors.New("no place"), Pos{}, false},
		{nil, Pos{}, false},
	} {
		if got, ok := PosOf(tt.err); got != tt.want || ok != tt.ok {
			t.Errorf("PosOf(%v) = %v, %v; want %v, %v", tt.err, got, ok, tt.want, tt.ok)
		}
	}
}
