//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRefused gives files that are not regular, or too large: each is
// refused with exit 2 naming the file, at once (a FIFO must not block: the
// test fails after 10 s rather than hang).
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxTF+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-vocab", fifo, fixtureTF}, fifo + ": not a regular file (p"},
		{[]string{"-vocab", fixtureVocab, fifo}, fifo + ": not a regular file (p"},
		{[]string{"-vocab", "/dev/zero", fixtureTF}, "/dev/zero: not a regular file (D"},
		{[]string{"-vocab", fixtureVocab, "/dev/zero"}, "/dev/zero: not a regular file (D"},
		{[]string{"-vocab", fixtureVocab, dir}, dir + ": not a regular file (d"},
		{[]string{"-vocab", fixtureVocab, big}, "big.txt: 67108865 bytes, over the 67108864-byte limit"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- run(&out, &errb, tt.args) }()
		select {
		case code := <-done:
			if code != 2 || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tt.args, code, errb.String(), tt.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("run(%q) did not return within 10 s: it blocked", tt.args)
		}
	}
}
