package runconf

import (
	"reflect"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// describe stands for the facts reader that reads the files a command
// line names: /tmp/p.txt holds "hello", nothing else is in the snapshot.
func describe(name string) string {
	if name == "/tmp/p.txt" {
		return "(5 bytes, sha256 " + ShortHash(SHA256([]byte("hello"))) + ")"
	}
	return "(not in the snapshot)"
}

const (
	cliTail        = "> hello\n\n[ Prompt: 14.3 t/s | Generation: 1.4 t/s ]\n"
	completionTail = "common_perf_print: prompt eval time =   33167.15 ms /  1264 tokens (   26.24 ms per token,    38.11 tokens per second)\n" +
		"common_perf_print:        eval time =       0.00 ms /     1 runs   (    0.00 ms per token,      inf tokens per second)\n"
	decodeTail = "common_perf_print:        eval time =    6832.30 ms /    22 runs   (  310.56 ms per token,     3.22 tokens per second)\n"
)

func TestOf(t *testing.T) {
	helloHash := "/tmp/p.txt (5 bytes, sha256 2cf24dba5fb0…)"
	tests := []struct {
		name string
		cmd  []string
		tail string
		want Config
	}{
		{"llama-cli chat", []string{"/x/llama-cli", "-m", "m.gguf", "-f", "/tmp/p.txt", "-n", "64", "-b", "1024", "-ub", "1024", "-st"}, cliTail,
			Config{Binary: "llama-cli", Mode: "chat (template applied)", Threads: "default (not set)", Prompt: helloHash,
				Batch: "1024", UBatch: "1024", NPredict: "64", Flags: "-st", Settings: []Setting{{"model", "m.gguf"}},
				PromptTokens: "not printed (llama-cli; the chat template adds tokens)",
				Decoded:      "not printed (Generation 1.4 t/s, at most -n 64)", DecodedSome: true, Files: []string{"/tmp/p.txt"}, Models: []string{"m.gguf"}}},
		{"llama-completion decoded nothing", []string{"llama-completion", "-f", "/tmp/p.txt", "-ub", "1024", "-no-cnv", "-t", "8"}, completionTail,
			Config{Binary: "llama-completion", Mode: "raw text", Threads: "8", Prompt: helloHash,
				Batch: "default (not set)", UBatch: "1024", NPredict: "default (not set)", Flags: "none",
				PromptTokens: "1264", Decoded: "0 (eval time = 0.00 ms / 1 runs)", DecodedKnown: true, Files: []string{"/tmp/p.txt"}}},
		{"long flags with =", []string{"llama-completion", "--file=/tmp/p.txt", "--threads=4", "--ignore-eos", "-no-cnv"}, decodeTail,
			Config{Binary: "llama-completion", Mode: "raw text", Threads: "4", Prompt: helloHash,
				Batch: "default (not set)", UBatch: "default (not set)", NPredict: "default (not set)", Flags: "--ignore-eos",
				PromptTokens: "not printed", Decoded: "22", DecodedKnown: true, DecodedN: 22, DecodedSome: true, Files: []string{"/tmp/p.txt"}}},
		{"missing file, trailing flag", []string{"llama-completion", "-f", "/tmp/none.txt", "-t"}, "",
			Config{Binary: "llama-completion", Mode: "raw text", Threads: "default (not set)", Prompt: "/tmp/none.txt (not in the snapshot)",
				Batch: "default (not set)", UBatch: "default (not set)", NPredict: "default (not set)", Flags: "none",
				PromptTokens: "not printed", Decoded: "not printed", Files: []string{"/tmp/none.txt"}}},
		{"empty argv", nil, "", Config{Mode: "raw text", Threads: "default (not set)", Prompt: "none on the command line",
			Batch: "default (not set)", UBatch: "default (not set)", NPredict: "default (not set)", Flags: "none",
			PromptTokens: "not printed", Decoded: "not printed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Of(&archive.Run{Name: "r", Cmd: tt.cmd}, llamacpp.Parse("t", tt.tail), describe)
			tt.want.Run = "r"
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Of(%q) =\n%+v\nwant\n%+v", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestDiffThreadsAlone(t *testing.T) {
	cmd := []string{"llama-completion", "-f", "/tmp/p.txt", "-ub", "1024", "-no-cnv", "-t", "8"}
	other := append([]string(nil), cmd...)
	other[len(other)-1] = "4"
	ms := llamacpp.Parse("t", decodeTail)
	a := Of(&archive.Run{Name: "a", Cmd: cmd}, ms, describe)
	b := Of(&archive.Run{Name: "b", Cmd: other}, ms, describe)
	got := Diff(a, b)
	want := []Difference{{"threads", "8", "4"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Diff = %v; want %v", got, want)
	}
	if d := Diff(a, a); d != nil {
		t.Errorf("Diff(a, a) = %v; want none", d)
	}
}

func TestOfStrata(t *testing.T) {
	ms := &tail.Metrics{}
	ms.Add(tail.Metric{Name: "decode_tokens", Num: mustNum(t, "64")})
	c := Of(&archive.Run{Name: "s", Cmd: []string{"build/strata_window_cli", "--prompt-file", "data/p.txt"}}, ms, nil)
	if c.Decoded != "64" || !c.DecodedSome || c.Prompt != "data/p.txt" || c.Mode != "raw text" {
		t.Errorf("Of(strata) = %+v; want 64 decoded, raw text, data/p.txt", c)
	}
}

// Every setting the grammar does not name is kept and compared: unknown
// value flags, flags without a value, positional arguments, negative
// numbers as values, the environment when both runs recorded it.
func TestSettings(t *testing.T) {
	tests := []struct {
		name string
		a, b archive.Run
		want []Difference
	}{
		{"strata --moce", archive.Run{Cmd: []string{"strata_window_cli", "--model", "a.gguf", "--k", "256", "--moce", "0", "--kld"}},
			archive.Run{Cmd: []string{"strata_window_cli", "--model", "a.gguf", "--k", "256", "--moce", "0.85", "--kld"}},
			[]Difference{{"--moce", "0", "0.85"}}},
		{"flag with and without a value", archive.Run{Cmd: []string{"x", "--seed", "-1", "--kld"}},
			archive.Run{Cmd: []string{"x", "--seed", "-2"}},
			[]Difference{{"--kld", "set", NotSet}, {"--seed", "-1", "-2"}}},
		{"model, ctx and a positional argument", archive.Run{Cmd: []string{"x", "-m", "a.gguf", "-c", "4096", "in.txt"}},
			archive.Run{Cmd: []string{"x", "-m", "b.gguf", "--ctx-size=2048", "in.txt"}},
			[]Difference{{"ctx", "4096", "2048"}, {"model", "a.gguf", "b.gguf"}}},
		{"environment", archive.Run{Cmd: []string{"x"}, Env: map[string]string{"ARENA_GB": "3.4"}},
			archive.Run{Cmd: []string{"x"}, Env: map[string]string{"ARENA_GB": "3.0", "EXTRA": "1"}},
			[]Difference{{"env ARENA_GB", "3.4", "3.0"}, {"env EXTRA", NotSet, "1"}}},
		{"environment not recorded on one side", archive.Run{Cmd: []string{"x"}, Env: map[string]string{"ARENA_GB": "3.4"}},
			archive.Run{Cmd: []string{"x"}, CarriedOver: true}, nil},
	}
	for _, tt := range tests {
		a, b := Of(&tt.a, nil, nil), Of(&tt.b, nil, nil)
		if got := Diff(a, b); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Diff(%q, %q) = %v; want %v", tt.name, tt.a.Cmd, tt.b.Cmd, got, tt.want)
		}
	}
}

func mustNum(t *testing.T, s string) (n num.Number) {
	t.Helper()
	n, err := num.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// FuzzOf checks what Diff promises for any two argvs and tails: a run
// never differs from itself; Diff is symmetric (the same fields, sides
// swapped); every difference has two different values; settings are sorted
// and named once.
func FuzzOf(f *testing.F) {
	f.Add("llama-cli -m m.gguf -f /tmp/p.txt -n 64 -st", "llama-completion -m n.gguf --kld -n 22 x", cliTail)
	f.Add("llama-completion --file=/tmp/p.txt -t -no-cnv", "llama-completion --seed -1 -t 4", completionTail)
	f.Add("x --threads= -b", "x --moce 0.85 --moce 0", decodeTail)
	f.Fuzz(func(t *testing.T, argvA, argvB, tailText string) {
		ms := llamacpp.Parse("t", tailText)
		a := Of(&archive.Run{Name: "a", Cmd: strings.Fields(argvA)}, ms, nil)
		b := Of(&archive.Run{Name: "b", Cmd: strings.Fields(argvB)}, ms, nil)
		if d := Diff(a, a); d != nil {
			t.Fatalf("Diff(a, a) = %v", d)
		}
		ab, ba := Diff(a, b), Diff(b, a)
		if len(ab) != len(ba) {
			t.Fatalf("Diff(a, b) = %v; Diff(b, a) = %v", ab, ba)
		}
		for i, d := range ab {
			if d.A == d.B || ba[i] != (Difference{d.Field, d.B, d.A}) {
				t.Fatalf("Diff(a, b)[%d] = %v; Diff(b, a)[%d] = %v", i, d, i, ba[i])
			}
		}
		for i := 1; i < len(a.Settings); i++ {
			if a.Settings[i-1].Name >= a.Settings[i].Name {
				t.Fatalf("settings of %q not sorted or repeated: %v", argvA, a.Settings)
			}
		}
	})
}

// With adds the settings an output prints, sorted among the command
// line's, without replacing one the command line gives.
func TestWith(t *testing.T) {
	c := Of(&archive.Run{Name: "r", Cmd: []string{"x", "--seed", "1", "-m", "a.gguf"}}, nil, nil)
	got := c.With([]Setting{{"printed n_threads", "8"}, {"model", "b.gguf"}, {"--kld", "set"}})
	want := []Setting{{"--kld", "set"}, {"--seed", "1"}, {"model", "a.gguf"}, {"printed n_threads", "8"}}
	if !reflect.DeepEqual(got.Settings, want) {
		t.Errorf("With = %v; want %v", got.Settings, want)
	}
	if len(c.Settings) != 2 {
		t.Errorf("With changed its receiver: %v", c.Settings)
	}
}
