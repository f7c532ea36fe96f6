package tail

import (
	"fmt"
	"strings"
)

var parityConfigRE = pattern(`route_parity: K=%n moce=%n max_abs_err %n mean_abs_err %n (PASS|FAIL)\b.*`)
var paritySummaryRE = pattern(`route_parity: %n/%n (PASS|FAIL)`)

// ParityKey returns the metric-name prefix of a route_parity configuration:
// "k512" for K=512 without MoCE, "k256_moce085" for K=256 with MoCE=0.85.
func ParityKey(k, moce string) string {
	key := "k" + k
	digits := strings.ReplaceAll(strings.TrimRight(strings.TrimRight(moce, "0"), "."), ".", "")
	if strings.Trim(digits, "0") != "" {
		key += "_moce" + digits
	}
	return key
}

// ParseRouteParity parses a route_parity log. Header lines starting with
// "# " (the command, env and exit status the record carries) are skipped,
// so line numbers are the file's. Metrics: "<key>.max_abs_err" and
// "<key>.mean_abs_err" per configuration (see ParityKey), "<key>.pass"
// (1 PASS, 0 FAIL), and "configs_pass", "configs_total" from the summary
// line. A configuration's metrics carry its K and moce as their Config. A
// log without a configuration line or a summary line has an Error.
func ParseRouteParity(source, text string) *Metrics { return ParseRouteParityMax(source, text, 0) }

// ParseRouteParityMax is ParseRouteParity keeping at most max metrics (0:
// no limit); past it the result is Over and the rest of text is not read.
func ParseRouteParityMax(source, text string, max int) *Metrics {
	r := newReader(source, max)
	configs := 0
	r.lines(text, func(n int, line string) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "# "), !strings.HasPrefix(line, "route_parity:"):
			return
		case strings.HasPrefix(line, "route_parity: K="):
			m := parityConfigRE.FindStringSubmatch(line)
			if m == nil {
				r.errorf(n, "malformed route_parity configuration line: %q", clip(line))
				return
			}
			key := ParityKey(m[1], m[2])
			from := len(r.ms.List)
			r.add(n, key+".max_abs_err", m[3], "")
			r.add(n, key+".mean_abs_err", m[4], "")
			r.add(n, key+".pass", boolText(m[5] == "PASS"), "")
			// the configuration the line printed, so that a plan's label
			// beside these figures (K=256, MoCE=0.85) is checked against it
			cfg := &Detail{Config: []Field{{Key: "K", Value: m[1]}, {Key: "moce", Value: m[2]}}}
			for i := from; i < len(r.ms.List); i++ {
				r.ms.List[i].Detail = cfg
			}
			configs++
		default:
			m := paritySummaryRE.FindStringSubmatch(line)
			if m == nil {
				return // other tool output (device, math mode)
			}
			r.seen["summary"] = n
			r.add(n, "configs_pass", m[1], "")
			r.add(n, "configs_total", m[2], "")
		}
	})
	if configs == 0 {
		r.errorf(0, "no route_parity configuration line")
	}
	r.require("summary")
	return r.ms
}

func boolText(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// SelfTestVerdict is the line the runner's self-test prints when it passes.
const SelfTestVerdict = "self-test: PASS"

var residencyRE = pattern(`.*mincore residency %n -> %n\b.*`)

// ParseSelfTest parses the validation runner's --self-test output. Lines
// "self-test: ok …" and "self-test: FAIL …" are checks; the verdict is the
// line that ends in "self-test: PASS" or "self-test: FAIL". Metrics:
// "checks_ok", "checks_failed", "verdict_pass" (1 or 0, on the verdict
// line), "verdict_garbled" (1 when the verdict line is not exactly
// "self-test: PASS" or "self-test: FAIL"), and "residency_before",
// "residency_after" from a check that reports mincore residency. Header
// lines ("# ") are skipped. Output without a verdict line has an Error;
// output with neither a verdict nor a check has no counts either.
func ParseSelfTest(source, text string) *Metrics { return ParseSelfTestMax(source, text, 0) }

// ParseSelfTestMax is ParseSelfTest keeping at most max metrics (0: no
// limit); past it the result is Over and the rest of text is not read.
func ParseSelfTestMax(source, text string, max int) *Metrics {
	r := newReader(source, max)
	ok, failed, lastCheck := 0, 0, 0
	verdict := 0
	r.lines(text, func(n int, line string) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "# "):
		case strings.HasSuffix(line, "self-test: PASS"), strings.HasSuffix(line, "self-test: FAIL"):
			if verdict != 0 {
				r.errorf(n, "second verdict line (first at line %d)", verdict)
				return
			}
			verdict = n
			r.add(n, "verdict_pass", boolText(strings.HasSuffix(line, "PASS")), "")
			r.add(n, "verdict_garbled", boolText(line != "self-test: PASS" && line != "self-test: FAIL"), "")
		case strings.HasPrefix(line, "self-test: ok"):
			ok++
			lastCheck = n
			if m := residencyRE.FindStringSubmatch(line); m != nil {
				r.add(n, "residency_before", m[1], "")
				r.add(n, "residency_after", m[2], "")
			}
		case strings.HasPrefix(line, "self-test: FAIL"):
			failed++
			lastCheck = n
		}
	})
	if verdict == 0 {
		r.errorf(0, "no verdict line (%q)", SelfTestVerdict)
	}
	line := verdict
	if line == 0 {
		line = lastCheck
	}
	if line > 0 { // output with no verdict and no check counts nothing
		r.add(line, "checks_ok", fmt.Sprint(ok), "")
		r.add(line, "checks_failed", fmt.Sprint(failed), "")
	}
	return r.ms
}
