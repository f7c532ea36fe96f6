package plan

import (
	"strings"
	"testing"
)

// TestIdentifier holds each identifier rule to what it admits and to the
// words it must not: those are unreadable numbers.
func TestIdentifier(t *testing.T) {
	tests := []struct {
		w, rule string // rule "" for an unreadable number
	}{
		{"Q2_0", "name"}, {"IQ3_S", "name"}, {"K256", "name"}, {"M5", "name"}, {"fp16", "name"},
		{"K256-q2", "name"}, {"step2_ngl99", "name"}, {"llama-2-7b", "name"}, {"top-1:", "name"}, {"(x86)", "name"},
		{"v1.2", "version"}, {"go1.26", "version"}, {"v0.3.1-rc1", "name"}, {"v2", "name"},
		{"MoCE=0.85", "setting"}, {"K=512,", "setting"},
		{"--n-gen=64", "flag"},
		{"2026-10-15", "date"}, {"2026-10-15T05:03:32.517Z", "date"},
		{"07:54:46", "time"}, {"08:01", "time"},
		{"2549439506dd…", "hash"}, {"334a7331", "hash"},
		{"§7.1", "place"}, {"#29", "place"}, {"L577–581", "place"}, {"#1–#28", "place"}, {"§1–§6", "place"},
		{"results/2026/x.json", "path"}, {"m5_prompt_1600tok.txt", "name"}, {"1600tok.txt", ""},
		{"3rd", "ordinal"}, {"3-way", "compound"},
		{"https://example.com/a/1.2", "url"},
		// unreadable numbers: each must fail in a claim section
		{"fill:9.99", ""}, {".35", ""}, {"#9.99", ""}, {"x-9.99", ""}, {"GB/9.99", ""},
		{"3,194.23msec", ""}, {"2.4k", ""}, {"9.99gb/s", ""}, {"9.99.1", ""}, {"1.2.3", ""},
		{"65536e3", ""}, {"12345e6", ""}, {"\\9.99", ""}, {"5G", ""}, {"9.99/", ""},
	}
	for _, tt := range tests {
		rule, ok := Identifier(tt.w)
		if ok != (tt.rule != "") || rule != tt.rule {
			t.Errorf("Identifier(%q) = %q, %v; want %q, %v", tt.w, rule, ok, tt.rule, tt.rule != "")
		}
	}
}

// TestUnreadable lists the words of a line that hold a digit the gate
// cannot read, and no others.
func TestUnreadable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"fill:9.99 GB/s at Q2_0, MoCE=0.85 on 2026-10-15", "fill:9.99"},
		{"took .35 s or #9.99 or x-9.99 or GB/9.99 s", ".35;#9.99;x-9.99;GB/9.99"},
		{"3,194.23msec and 2.4k slots and 9.99gb/s and 9.99.1", "3,194.23msec;2.4k;9.99gb/s;9.99.1"},
		{"3,194.19 ms, 6.39–6.44 GB/s, 82.17 + 9.38 %, 2.67×", ""},
		{"see §7.1 #29, L577–581 and `fill:9.99`", ""},
		{"section 7 and item 5", ""},
	}
	for _, tt := range tests {
		d := Parse("PLAN.md", []byte(tt.in+"\n"))
		var got []string
		for _, w := range d.Lines[0].Unreadable() {
			got = append(got, w.Text)
			if d.Lines[0].Text[w.Col-1:w.Col-1+len(w.Text)] != w.Text {
				t.Errorf("Unreadable(%q): %q at column %d does not point at its text", tt.in, w.Text, w.Col)
			}
		}
		if strings.Join(got, ";") != tt.want {
			t.Errorf("Unreadable(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
