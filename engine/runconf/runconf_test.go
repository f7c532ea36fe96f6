package runconf

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/llamacpp"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/snapfs"
	"github.com/strataspec/strataspec/engine/tail"
)

func snapshot(t *testing.T) *archive.Snapshot {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "machine", "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "machine", "tmp", "p.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := snapfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return &archive.Snapshot{Root: root, FS: fsys, Spec: &checkout.Spec{Machine: "machine"}}
}

const (
	cliTail        = "> hello\n\n[ Prompt: 14.3 t/s | Generation: 1.4 t/s ]\n"
	completionTail = "common_perf_print: prompt eval time =   33167.15 ms /  1264 tokens (   26.24 ms per token,    38.11 tokens per second)\n" +
		"common_perf_print:        eval time =       0.00 ms /     1 runs   (    0.00 ms per token,      inf tokens per second)\n"
	decodeTail = "common_perf_print:        eval time =    6832.30 ms /    22 runs   (  310.56 ms per token,     3.22 tokens per second)\n"
)

func TestOf(t *testing.T) {
	s := snapshot(t)
	helloHash := "/tmp/p.txt (5 bytes, sha256 2cf24dba5fb0…)"
	tests := []struct {
		name string
		cmd  []string
		tail string
		want Config
	}{
		{"llama-cli chat", []string{"/x/llama-cli", "-m", "m.gguf", "-f", "/tmp/p.txt", "-n", "64", "-b", "1024", "-ub", "1024", "-st"}, cliTail,
			Config{Binary: "llama-cli", Mode: "chat (template applied)", Threads: "default (not set)", Prompt: helloHash,
				Batch: "1024", UBatch: "1024", NPredict: "64", Flags: "-st",
				PromptTokens: "not printed (llama-cli; the chat template adds tokens)",
				Decoded:      "not printed (Generation 1.4 t/s, at most -n 64)", DecodedSome: true, Files: []string{"/tmp/p.txt"}}},
		{"llama-completion decoded nothing", []string{"llama-completion", "-f", "/tmp/p.txt", "-ub", "1024", "-no-cnv", "-t", "8"}, completionTail,
			Config{Binary: "llama-completion", Mode: "raw text", Threads: "8", Prompt: helloHash,
				Batch: "default (not set)", UBatch: "1024", NPredict: "default (not set)", Flags: "none",
				PromptTokens: "1264", Decoded: "0 (eval time = 0.00 ms / 1 runs)", DecodedKnown: true, Files: []string{"/tmp/p.txt"}}},
		{"long flags with =", []string{"llama-completion", "--file=/tmp/p.txt", "--threads=4", "--ignore-eos", "-no-cnv"}, decodeTail,
			Config{Binary: "llama-completion", Mode: "raw text", Threads: "4", Prompt: helloHash,
				Batch: "default (not set)", UBatch: "default (not set)", NPredict: "default (not set)", Flags: "--ignore-eos",
				PromptTokens: "not printed", Decoded: "22", DecodedKnown: true, DecodedN: 22, DecodedSome: true, Files: []string{"/tmp/p.txt"}}},
		{"missing file, trailing flag", []string{"llama-completion", "-f", "/tmp/none.txt", "-t"}, "",
			Config{Binary: "llama-completion", Mode: "raw text", Threads: "default (not set)",
				Batch: "default (not set)", UBatch: "default (not set)", NPredict: "default (not set)", Flags: "none",
				PromptTokens: "not printed", Decoded: "not printed", Files: []string{"/tmp/none.txt"}}},
		{"empty argv", nil, "", Config{Mode: "raw text", Threads: "default (not set)", Prompt: "none on the command line",
			Batch: "default (not set)", UBatch: "default (not set)", NPredict: "default (not set)", Flags: "none",
			PromptTokens: "not printed", Decoded: "not printed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Of(s, &archive.Run{Name: "r", Cmd: tt.cmd}, llamacpp.Parse("t", tt.tail))
			tt.want.Run = "r"
			if strings.HasPrefix(got.Prompt, "/tmp/none.txt (unreadable") {
				got.Prompt = ""
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Of(%q) =\n%+v\nwant\n%+v", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestDiffThreadsAlone(t *testing.T) {
	s := snapshot(t)
	cmd := []string{"llama-completion", "-f", "/tmp/p.txt", "-ub", "1024", "-no-cnv", "-t", "8"}
	other := append([]string(nil), cmd...)
	other[len(other)-1] = "4"
	ms := llamacpp.Parse("t", decodeTail)
	a := Of(s, &archive.Run{Name: "a", Cmd: cmd}, ms)
	b := Of(s, &archive.Run{Name: "b", Cmd: other}, ms)
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
	c := Of(nil, &archive.Run{Name: "s", Cmd: []string{"build/strata_window_cli", "--prompt-file", "data/p.txt"}}, ms)
	if c.Decoded != "64" || !c.DecodedSome || c.Prompt != "data/p.txt (not read)" || c.Mode != "raw text" {
		t.Errorf("Of(strata) = %+v; want 64 decoded, raw text, data/p.txt (not read)", c)
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

// FuzzOf checks that reading a configuration from any argv and tail never
// panics and that a run never differs from itself.
func FuzzOf(f *testing.F) {
	f.Add("llama-cli -m m.gguf -f /tmp/p.txt -n 64 -st", cliTail)
	f.Add("llama-completion --file=/tmp/p.txt -t -no-cnv", completionTail)
	f.Add("x --threads= -b", decodeTail)
	f.Fuzz(func(t *testing.T, argv, tailText string) {
		r := &archive.Run{Name: "r", Cmd: strings.Fields(argv)}
		c := Of(nil, r, llamacpp.Parse("t", tailText))
		if d := Diff(c, c); d != nil {
			t.Fatalf("Diff(c, c) = %v", d)
		}
	})
}
