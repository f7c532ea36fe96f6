package format

import (
	"bytes"
	"strings"
)

// Content tests of the built-in formats that can be told by the lines they
// print: the loader asks the registry (Registry.Recognize) for a log whose
// command was not recorded.

// isPerplexity: llama-perplexity's final estimate or KL-divergence
// statistics.
func isPerplexity(text string) bool {
	return strings.Contains(text, "Final estimate: PPL") || strings.Contains(text, "KL-divergence statistics") ||
		strings.Contains(text, "====== Perplexity statistics")
}

// isServer: llama-server's per-slot timings, or a /completion response
// ({"content": …, "timings": {"prompt_n": …, "prompt_per_second": …}}).
func isServer(text string) bool {
	return strings.Contains(text, "print_timings:") && strings.Contains(text, "slot") ||
		strings.Contains(text, `"timings":`) && strings.Contains(text, `"prompt_per_second":`)
}

// llamaMarkers are lines every llama.cpp program prints, old and new.
var llamaMarkers = []string{"llama_perf_context_print:", "llama_print_timings:", "common_perf_print:", "llama_perf_print:", "llama_model_loader:", "llm_load_print_meta:"}

// isLlamaCpp: the perf summary or model-loader lines of any llama.cpp
// program.
func isLlamaCpp(text string) bool {
	for _, m := range llamaMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// LooksLikeBench reports whether a file's text is llama-bench output, by
// its content whatever its name: JSON, JSON Lines and CSV carry an avg_ts
// field; the markdown table has a header row with the cells "test" and
// "t/s", however padded ("|          test |  t/s |"). Only the first 4 KiB
// are looked at.
func LooksLikeBench(b []byte) bool {
	head := b
	if len(head) > 4096 {
		head = head[:4096]
	}
	if bytes.Contains(head, []byte("avg_ts")) {
		return true
	}
	for _, line := range bytes.Split(head, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if !bytes.HasPrefix(line, []byte("|")) {
			continue
		}
		var test, rate bool
		for _, cell := range bytes.Split(line, []byte("|")) {
			switch string(bytes.TrimSpace(cell)) {
			case "test":
				test = true
			case "t/s":
				rate = true
			}
		}
		if test && rate {
			return true
		}
	}
	return false
}
