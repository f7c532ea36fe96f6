// Package arena holds the arena rule, about the expert arena: the slots
// follow from the .experts size and page size, the arena variable equals
// the logged arena, and runs share one arena size. The arena's environment
// variable and slice count come from the checkout's spec ("rules":
// {"arena": …}).
package arena

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/strataspec/strataspec/engine/analysis"
	"github.com/strataspec/strataspec/engine/archive"
	"github.com/strataspec/strataspec/engine/arena"
	"github.com/strataspec/strataspec/engine/checkout"
	"github.com/strataspec/strataspec/engine/facts"
	"github.com/strataspec/strataspec/engine/finding"
	"github.com/strataspec/strataspec/engine/num"
	"github.com/strataspec/strataspec/engine/tail"
)

// Arena checks the expert arenas of the runs that log one: the logged size against the
// environment variable that sets it, one size across the runs, and the slot
// counts against the arithmetic of the `.experts` file and page size.
var Arena = &analysis.Analyzer{
	Name:     "arena",
	Doc:      "expert arena: slots from .experts size and page size; the arena variable equals the logged arena; one arena size across runs",
	Fix:      "size the arena from the .experts file and page size, one size everywhere",
	Requires: []*analysis.Analyzer{facts.RunMetrics.Analyzer},
	Metrics:  arenaMetrics,
	Run:      runArena,
}

func (s ArenaSettings) Validate(spec *checkout.Spec) error {
	if s.Env == "" || s.Slices < 0 || s.PageKiB < 0 || s.PageKiB > 1<<20 {
		return spec.RuleErrorf("arena", `needs "env", and "slices" and "page_kib" not below 0`)
	}
	return nil
}

// ArenaSettings are the arena rule's settings ("rules": {"arena": …}).
type ArenaSettings struct {
	// Env is the environment variable that sets the arena size in GB.
	Env string `json:"env"`
	// Slices is the number of expert slices in a `.experts` file, used
	// where a run's log does not print it; 0 when the logs must.
	Slices int `json:"slices,omitempty"`
	// PageKiB is the VM page size in KiB, used where a run's log does not
	// print it; 0 for darwin/arm64's 16 KiB.
	PageKiB int `json:"page_kib,omitempty"`
}

func runArena(p *analysis.Pass) (any, error) {
	var cfg ArenaSettings
	if err := analysis.Settings(p, "arena", "arena settings (the variable that sets the arena size)", &cfg); err != nil {
		return nil, err
	}
	page := arena.PageDarwinARM64
	if cfg.PageKiB > 0 {
		page = arena.Bytes(cfg.PageKiB) * arena.KiB
	}
	snap := p.Snap
	ms := facts.RunMetrics.Of(p)
	runs, err := arenaRuns(snap, ms, cfg.Env)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, analysis.NotApplicable("%s", facts.NoRunWith(arenaMetrics[:2]...))
	}
	p.ReportAll(checkArena(runs, cfg.Slices, page))
	return nil, nil
}

// arenaRun is one strata run as the arena rule reads it.
type arenaRun struct {
	Name string
	File string // file the tail is in, relative to the snapshot root
	// EnvName is the variable that sets the arena size; Env is its value
	// as archived, HasEnv false when unset.
	EnvName string
	Env     string
	HasEnv  bool
	// Experts names the `.experts` file the run filled its arena from
	// (e.g. its quantisation, "Q2_0"); runs of one file must agree.
	Experts string
	// FileGiB is the `.experts` file size in GiB as printed.
	FileGiB num.Number
	// Logged metrics; a zero Metric (empty text) was not logged.
	EnvLogged                       tail.Metric // the engine's echo of the arena variable
	Slices                          tail.Metric // expert slices in the file
	PageKiB                         tail.Metric // page size in KiB
	ArenaGB, Slots, Filled, Classes tail.Metric
	// Pages is pages per slot where a log prints it. The audited engine's
	// log does not (arenaRuns never sets it); checkArena checks it against
	// the arithmetic when a future log, or a test, provides it.
	Pages tail.Metric
}

func (r arenaRun) logged(m tail.Metric) bool { return m.Num.Text != "" }

// checkArena checks the strata runs' arenas: each run's logged size against
// its environment, one size across all runs, and the slot counts per
// `.experts` file — computed from the file and page size where the arena has
// one size class, identical across runs where it has several. One size
// across all strata runs is stronger than one size across the runs a claim
// compares, and is what the audit checked ("uniform arena"). slices and page
// are used where a run's log does not print the slice count or page size.
func checkArena(runs []arenaRun, slices int, page arena.Bytes) []finding.Finding {
	var out []finding.Finding
	add := func(sev finding.Severity, r arenaRun, m tail.Metric, raw, format string, args ...any) {
		out = append(out, arenaFinding("size", sev, r, m, raw, fmt.Sprintf(format, args...)))
	}
	if len(runs) == 0 {
		out = append(out, finding.Finding{Severity: finding.Fail, Check: "size", Message: "no strata run logs an expert arena"})
		return out
	}

	// Each run: the logged arena is the one the environment asked for.
	sizes := map[arena.Bytes][]arenaRun{}
	pinned := 0
	for _, r := range runs {
		if !r.HasEnv {
			add(finding.Fail, r, r.ArenaGB, "", "run %s: %s is not set, so the arena size is the engine's choice and not pinned", r.Name, r.EnvName)
			continue
		}
		env, err := num.Parse(r.Env)
		if err != nil {
			add(finding.Fail, r, r.ArenaGB, r.Env, "run %s: %s=%q is not a number", r.Name, r.EnvName, r.Env)
			continue
		}
		b, err := arena.FromGB(env.Value)
		if err != nil {
			add(finding.Fail, r, r.ArenaGB, r.Env, "run %s: %s=%q: %v", r.Name, r.EnvName, r.Env, err)
			continue
		}
		if r.logged(r.EnvLogged) && !num.Matches(env.Value, r.EnvLogged.Num) {
			add(finding.Fail, r, r.EnvLogged, r.Env, "run %s: the engine logs %s=%s; the archived environment says %s", r.Name, r.EnvName, r.EnvLogged.Num.Text, r.Env)
		}
		if !r.logged(r.ArenaGB) {
			add(finding.Fail, r, r.ArenaGB, r.Env, "run %s: no \"expert arena … GB\" line; %s=%s", r.Name, r.EnvName, r.Env)
		} else if !num.Matches(env.Value, r.ArenaGB.Num) {
			add(finding.Fail, r, r.ArenaGB, r.Env, "run %s: logged arena %s GB ≠ %s=%s", r.Name, r.ArenaGB.Num.Text, r.EnvName, r.Env)
		}
		sizes[b] = append(sizes[b], r)
		pinned++
	}

	// One arena size across the runs: the audit's "uniform arena", without
	// which no two runs' hit rates or fills compare.
	if len(sizes) == 1 && pinned == len(runs) {
		for b, rs := range sizes {
			r := rs[0]
			add(finding.Pass, r, r.ArenaGB, r.Env, "uniform arena: %s=%s and expert arena %s GB logged in all %d strata runs (%s bytes)",
				r.EnvName, r.Env, r.ArenaGB.Num.Text, len(rs), num.Format(float64(b), 0))
		}
	} else if len(sizes) > 1 {
		// Name the runs off the most common size.
		var keys []arena.Bytes
		for b := range sizes {
			keys = append(keys, b)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(sizes[keys[i]]) != len(sizes[keys[j]]) {
				return len(sizes[keys[i]]) > len(sizes[keys[j]])
			}
			return keys[i] < keys[j]
		})
		common := sizes[keys[0]]
		for _, b := range keys[1:] {
			for _, r := range sizes[b] {
				add(finding.Fail, r, r.ArenaGB, r.Env, "arena not uniform: run %s has %s=%s (%s GB logged); %d of the %d runs have %s (%s GB)",
					r.Name, r.EnvName, r.Env, r.ArenaGB.Num.Text, len(common), pinned, common[0].Env, common[0].ArenaGB.Num.Text)
			}
		}
	}

	// Slot counts, per `.experts` file.
	byFile := map[string][]arenaRun{}
	var files []string
	for _, r := range runs {
		if _, ok := byFile[r.Experts]; !ok {
			files = append(files, r.Experts)
		}
		byFile[r.Experts] = append(byFile[r.Experts], r)
	}
	for _, file := range files {
		out = append(out, arenaSlots(file, byFile[file], slices, page)...)
	}
	return out
}

// arenaFinding is an arena finding of the sub-check check about run r,
// placed at the tail line of the metric m it is about.
func arenaFinding(check string, sev finding.Severity, r arenaRun, m tail.Metric, raw, msg string) finding.Finding {
	return finding.Finding{Severity: sev, Check: check, File: r.File, Line: m.Line,
		Quote: m.Num.Text, Raw: raw, Source: r.Name, Message: msg}
}

// arenaSlots checks the slot counts of the runs that filled from one file.
func arenaSlots(file string, rs []arenaRun, slices int, page arena.Bytes) []finding.Finding {
	var out []finding.Finding
	add := func(sev finding.Severity, r arenaRun, m tail.Metric, raw, format string, args ...any) {
		out = append(out, arenaFinding("slots", sev, r, m, raw, fmt.Sprintf(format, args...)))
	}
	ok := true
	for _, r := range rs {
		for _, m := range []struct {
			name string
			m    tail.Metric
		}{{"slots", r.Slots}, {"size classes", r.Classes}} {
			if !r.logged(m.m) {
				ok = false
				add(finding.Fail, r, m.m, "", "%s run %s: the arena line logs no %s", file, r.Name, m.name)
			}
		}
	}
	if !ok {
		return out
	}
	first := rs[0]
	if first.Classes.Value() == 1 {
		return append(out, arenaUniform(file, rs, slices, page)...)
	}
	// Several size classes: the slot count depends on the class sizes, which
	// the log does not give, so the rule checks that every run of this file
	// logs the same counts (a run off the most common count is named) and
	// that the filled slots fit.
	for _, c := range []struct {
		name string
		get  func(arenaRun) tail.Metric
	}{
		{"slots", func(r arenaRun) tail.Metric { return r.Slots }},
		{"filled slots", func(r arenaRun) tail.Metric { return r.Filled }},
		{"size classes", func(r arenaRun) tail.Metric { return r.Classes }},
	} {
		common, n := arenaCommon(rs, c.get)
		for _, r := range rs {
			if got := arenaText(c.get(r)); got != common {
				ok = false
				add(finding.Fail, r, c.get(r), common, "%s run %s: %s %s; the other %d runs of this file and arena log %s",
					file, r.Name, c.name, got, n, common)
			}
		}
	}
	for _, r := range rs {
		if r.logged(r.Filled) && r.Filled.Value() > r.Slots.Value() {
			ok = false
			add(finding.Fail, r, r.Filled, r.Slots.Num.Text, "%s run %s: %s slots filled of %s", file, r.Name, r.Filled.Num.Text, r.Slots.Num.Text)
		}
	}
	if ok {
		filled := ""
		if first.logged(first.Filled) {
			filled = fmt.Sprintf(" (%s filled)", arenaCount(first.Filled))
		}
		add(finding.Pass, first, first.Slots, first.Slots.Num.Text, "%s: %s slots%s in %s size classes, identical in %d runs (%s); with several classes the slot count is not derived from the file size",
			file, arenaCount(first.Slots), filled, arenaCount(first.Classes), len(rs), arenaNames(rs))
	}
	return out
}

// arenaUniform checks runs whose arena has one size class against the
// arithmetic: pages per slot from the file size, slots from the arena size.
func arenaUniform(file string, rs []arenaRun, slices int, page arena.Bytes) []finding.Finding {
	var out []finding.Finding
	add := func(sev finding.Severity, r arenaRun, m tail.Metric, raw, format string, args ...any) {
		out = append(out, arenaFinding("slots", sev, r, m, raw, fmt.Sprintf(format, args...)))
	}
	ok := true
	var pass []string
	passRaw := ""
	for _, r := range rs {
		if r.FileGiB.Text == "" {
			ok = false
			add(finding.Fail, r, r.Slots, "", "%s run %s: the size of the .experts file is not known, so the slot count cannot be checked", file, r.Name)
			continue
		}
		env, err := num.Parse(r.Env)
		if err != nil {
			ok = false // reported by checkArena
			continue
		}
		arenaBytes, err := arena.FromGB(env.Value)
		if err != nil {
			ok = false
			continue
		}
		slices, page := slices, page
		if r.logged(r.Slices) {
			v := r.Slices.Value()
			if v != math.Trunc(v) || v < 1 || v > math.MaxInt32 {
				ok = false
				add(finding.Fail, r, r.Slices, "", "%s run %s: %s expert slices is not a count", file, r.Name, r.Slices.Num.Text)
				continue
			}
			slices = int(v)
		}
		if slices <= 0 {
			ok = false
			add(finding.Fail, r, r.Slots, "", "%s run %s: the expert slice count is neither logged nor declared (\"slices\" in the arena settings), so the slot count cannot be checked", file, r.Name)
			continue
		}
		if r.logged(r.PageKiB) {
			v := r.PageKiB.Value()
			if v != math.Trunc(v) || v < 1 || v > 1<<30 {
				ok = false
				add(finding.Fail, r, r.PageKiB, "", "%s run %s: %s KiB is not a page size", file, r.Name, r.PageKiB.Num.Text)
				continue
			}
			page = arena.Bytes(v) * arena.KiB
		}
		lo, hi, err := arena.PrintedRange(r.FileGiB, arena.GiB)
		if err != nil {
			ok = false
			add(finding.Fail, r, r.Slots, r.FileGiB.Text, "%s run %s: .experts size %s GiB: %v", file, r.Name, r.FileGiB.Text, err)
			continue
		}
		var ls [2]arena.Layout
		for i, fb := range []arena.Bytes{lo, hi} {
			if ls[i], err = arena.Plan(arena.Config{FileBytes: fb, Slices: slices, PageBytes: page, ArenaBytes: arenaBytes}); err != nil {
				break
			}
		}
		if err != nil {
			ok = false
			add(finding.Fail, r, r.Slots, r.FileGiB.Text, "%s run %s: %v", file, r.Name, err)
			continue
		}
		if ls[0].SlotPages != ls[1].SlotPages || ls[0].Slots != ls[1].Slots {
			ok = false
			add(finding.Warn, r, r.Slots, r.FileGiB.Text, "%s run %s: a .experts file of %s GiB as printed gives %d–%d pages per slot, %d–%d slots: the printed size does not determine the count",
				file, r.Name, r.FileGiB.Text, ls[0].SlotPages, ls[1].SlotPages, ls[1].Slots, ls[0].Slots)
			continue
		}
		l := ls[0]
		want := num.Format(float64(l.Slots), 0)
		if r.Slots.Value() != float64(l.Slots) {
			ok = false
			add(finding.Fail, r, r.Slots, want, "%s run %s: logged %s slots; %s GiB / %s slices → %d pages of %s per slot, and %s / (%d × %s) = %s slots",
				file, r.Name, r.Slots.Num.Text, r.FileGiB.Text, num.Format(float64(slices), 0), l.SlotPages, arenaPage(page), arenaSize(r), l.SlotPages, arenaPage(page), want)
		}
		if r.logged(r.Pages) && r.Pages.Value() != float64(l.SlotPages) {
			ok = false
			add(finding.Fail, r, r.Pages, fmt.Sprint(l.SlotPages), "%s run %s: logged %s pages per slot; %s GiB / %s slices = %.2f × %s → %d pages",
				file, r.Name, r.Pages.Num.Text, r.FileGiB.Text, num.Format(float64(slices), 0), float64(l.SlotBytes)/float64(page), arenaPage(page), l.SlotPages)
		}
		if r.logged(r.Filled) && r.Filled.Value() > r.Slots.Value() {
			ok = false
			add(finding.Fail, r, r.Filled, r.Slots.Num.Text, "%s run %s: %s slots filled of %s", file, r.Name, r.Filled.Num.Text, r.Slots.Num.Text)
		}
		if len(pass) == 0 {
			pass = append(pass,
				fmt.Sprintf("%s: %s GiB / %s slices = %s MB = %.1f × %s → %d pages per slot; %s / (%d × %s) = %s slots in 1 size class",
					file, r.FileGiB.Text, num.Format(float64(slices), 0), num.Format(float64(l.SlotBytes)/float64(arena.MB), 2),
					float64(l.SlotBytes)/float64(page), arenaPage(page), l.SlotPages, arenaSize(r), l.SlotPages, arenaPage(page), want))
			passRaw = want
		}
	}
	if ok && len(pass) > 0 {
		first := rs[0]
		add(finding.Pass, first, first.Slots, passRaw, "%s, as logged in %d runs (%s)", pass[0], len(rs), arenaNames(rs))
	}
	return out
}

// arenaCommon returns the most common printed value of get over rs (the
// first seen on a tie) and how many runs print it.
func arenaCommon(rs []arenaRun, get func(arenaRun) tail.Metric) (string, int) {
	count := map[string]int{}
	best, n := "", 0
	for _, r := range rs {
		t := arenaText(get(r))
		count[t]++
		if count[t] > n {
			best, n = t, count[t]
		}
	}
	return best, n
}

// arenaSize prints a run's arena size as the arithmetic uses it: the
// environment's exact value, with the logged size beside it.
func arenaSize(r arenaRun) string {
	if r.logged(r.ArenaGB) {
		return fmt.Sprintf("%s GB (%s=%s)", r.ArenaGB.Num.Text, r.EnvName, r.Env)
	}
	return fmt.Sprintf("%s GB (%s)", r.Env, r.EnvName)
}

// arenaCount prints a logged count with thousands separators.
func arenaCount(m tail.Metric) string {
	if m.Num.Text == "" {
		return "(not logged)"
	}
	return num.Format(m.Value(), 0)
}

func arenaText(m tail.Metric) string {
	if m.Num.Text == "" {
		return "(not logged)"
	}
	return m.Num.Text
}

func arenaPage(p arena.Bytes) string {
	if p%arena.KiB == 0 {
		return fmt.Sprintf("%d KiB", p/arena.KiB)
	}
	return p.String()
}

func arenaNames(rs []arenaRun) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name
	}
	return strings.Join(names, ", ")
}

// arenaMetrics are the metrics the arena rule reads; a run that logs an
// arena (the first two) is one the rule checks.
var arenaMetrics = []string{"arena_gb", "arena_slots", "arena_slots_filled", "arena_size_classes",
	"page_kib", "arena_env_gb", "experts_gib", "expert_slices"}

// arenaRuns reads the arenas of the runs that log one: the arena variable from the
// archived environment and, from the parsed log, the engine's echo of it
// (arena_env_gb), the .experts size and slice count, the arena line's size,
// slots, filled slots, size classes and page size.
func arenaRuns(snap *archive.Snapshot, ms map[string]*tail.Metrics, envName string) ([]arenaRun, error) {
	var out []arenaRun
	for _, r := range facts.RunsWith(snap, ms, arenaMetrics[:2]...) {
		m := ms[r.Name]
		env, has := r.Env[envName]
		a := arenaRun{Name: r.Name, File: r.Source, EnvName: envName, Env: env, HasEnv: has}
		get := func(name string) tail.Metric { v, _ := m.Get(name); return v }
		a.EnvLogged = get("arena_env_gb")
		a.FileGiB = get("experts_gib").Num
		a.Slices = get("expert_slices")
		a.ArenaGB = get("arena_gb")
		a.Slots = get("arena_slots")
		a.Filled = get("arena_slots_filled")
		a.Classes = get("arena_size_classes")
		a.PageKiB = get("page_kib")
		a.Experts = arenaExperts(r.Cmd, a.FileGiB)
		out = append(out, a)
	}
	return out, nil
}

var arenaQuant = regexp.MustCompile(`-(Q\d\w*?|IQ\d\w*?|F16|BF16|F32)-[^/]*\.gguf`)

// arenaExperts names the .experts file a run filled from: the quantisation
// in its model path (K256-Q2_0-metal.gguf → "Q2_0"), else its size.
func arenaExperts(cmd []string, size num.Number) string {
	for _, a := range cmd {
		if m := arenaQuant.FindStringSubmatch(a); m != nil {
			return m[1]
		}
	}
	if size.Text != "" {
		return ".experts file of " + size.Text + " GiB"
	}
	return "unknown .experts file"
}
