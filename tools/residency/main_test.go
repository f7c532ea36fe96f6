package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage"},
		{[]string{"-evict", "-warm", "f"}, "exclusive"},
		{[]string{"-sync", "f"}, "-sync goes with -evict"},
		{[]string{"-warm", "-sync", "f"}, "-sync goes with -evict"},
		{[]string{"-format", "xml", "f"}, `unknown format "xml"`},
		{[]string{"-bogus", "f"}, "flag provided but not defined"},
		{[]string{"/no/such/file"}, "/no/such/file"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := run(&out, &errb, tt.args); code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tt.args, code, errb.String(), tt.want)
		}
	}
}
