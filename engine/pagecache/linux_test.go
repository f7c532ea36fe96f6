//go:build linux

package pagecache

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strataspec/strataspec/engine/pagecache/pagecachetest"
)

// resident measures path with mincore, page by page, independently of any
// Result.
func resident(t testing.TB, path string) Count {
	t.Helper()
	r, err := Options{Mincore: true}.Residency(path)
	if err == nil && r.Method != "mincore" {
		t.Fatalf("Options{Mincore: true}.Residency used %q", r.Method)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r.Count
}

const testSize = 16<<20 + 123 // a partial last page

func TestEvictWarm(t *testing.T) {
	dir := pagecachetest.DiskDir(t)
	for _, o := range []Options{{}, {Mincore: true}} {
		path := pagecachetest.CachedFile(t, dir, fmt.Sprintf("f%v", o.Mincore), testSize)
		pages := int64((testSize + os.Getpagesize() - 1) / os.Getpagesize())
		if c := resident(t, path); c.Total != pages || c.Resident != pages {
			t.Fatalf("after writing: %v; want all %d pages resident", c, pages)
		}

		ev, err := o.Evict(path)
		if err != nil {
			t.Fatal(err)
		}
		if !ev.Verified || ev.Before.Resident != pages || ev.After.Resident != 0 {
			t.Errorf("%+v.Evict(%q) = verified %v, %v → %v, reasons %+v; want verified, all → none",
				o, path, ev.Verified, ev.Before.Count, ev.After.Count, ev.Reasons)
		}
		if o.Mincore && ev.After.Method != "mincore" {
			t.Errorf("%+v.Evict counted with %q; want mincore", o, ev.After.Method)
		}
		if c := resident(t, path); c.Resident != 0 {
			t.Errorf("after %+v.Evict(%q): %v resident; want none", o, path, c)
		}

		w, err := o.Warm(path)
		if err != nil {
			t.Fatal(err)
		}
		if !w.Verified || w.After.Resident != pages || w.Bytes != testSize {
			t.Errorf("%+v.Warm(%q) = verified %v, %v → %v, %d bytes; want verified, all %d pages, %d bytes",
				o, path, w.Verified, w.Before.Count, w.After.Count, w.Bytes, pages, testSize)
		}
		if c := resident(t, path); c.Resident != pages {
			t.Errorf("after %+v.Warm(%q): %v resident; want all", o, path, c)
		}
	}
}

// sys is this kernel's platform, cachestat included where it has it.
var sys = host.(linux)

// noop is the audit's helper in its most honest form: an eviction that
// returns success and does nothing.
type noop struct{ linux }

func (noop) evict(*os.File, int64, bool) error { return nil }

// madviseDontneed is the audit's helper as written: madvise(MADV_DONTNEED)
// on a read-only shared mapping. On Linux, as on darwin, that drops this
// process's page-table entries, not the page cache.
type madviseDontneed struct{ linux }

func (madviseDontneed) evict(f *os.File, size int64, _ bool) error {
	return eachWindow(f, size, func(m []byte, _ int64) error {
		return unix.Madvise(m, unix.MADV_DONTNEED)
	})
}

func TestVerifierCatchesNoOpEviction(t *testing.T) {
	dir := pagecachetest.DiskDir(t)
	for _, tc := range []struct {
		p     platform
		quick bool
	}{{noop{sys}, true}, {noop{sys}, false}, {madviseDontneed{sys}, true}, {madviseDontneed{sys}, false}} {
		p := tc.p
		name := fmt.Sprintf("%T quick=%v", p, tc.quick)
		path := pagecachetest.CachedFile(t, dir, strings.TrimPrefix(fmt.Sprintf("%T%v", p, tc.quick), "pagecache."), testSize)
		res, err := evict(p, path, tc.quick, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Verified || res.After.Fraction() < 0.99 {
			t.Errorf("%s: evict = verified %v, after %v; want not verified, ≥ 99 %% still resident", name, res.Verified, res.After.Count)
		}
		if got := stayed(res.Reasons); got != res.After.Resident || res.Reasons[0].Reason != ReasonUnknown {
			t.Errorf("%s: reasons %+v account for %d pages; want the %d resident pages, unknown", name, res.Reasons, got, res.After.Resident)
		}
		if c := resident(t, path); c.Fraction() < 0.99 {
			t.Errorf("%s: independent reading %v; the no-op should have left the file resident", name, c)
		}
	}
}

func TestTmpfsNotEvictable(t *testing.T) {
	var fs unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &fs); err != nil || !memoryFS(uint32(fs.Type)) {
		t.Skip("no tmpfs at /dev/shm")
	}
	d, err := os.MkdirTemp("/dev/shm", "pagecache-test-")
	if err != nil {
		t.Fatalf("/dev/shm is a tmpfs but not writable: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	path := pagecachetest.CachedFile(t, d, "f", 1<<20)
	res, err := Evict(path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verified || !res.After.Tmpfs || res.After.Fraction() != 1 ||
		len(res.Reasons) != 1 || res.Reasons[0].Reason != ReasonTmpfs || res.Reasons[0].Pages != res.After.Total {
		t.Errorf("Evict(%q) = verified %v, tmpfs %v, after %v, reasons %+v; want not verified, all pages stayed for tmpfs",
			path, res.Verified, res.After.Tmpfs, res.After.Count, res.Reasons)
	}
}

func TestEmptyFile(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "empty", 0)
	r, err := Residency(path, Range{0, 0})
	if err != nil || r.Count != (Count{}) || len(r.Ranges) != 1 || r.Ranges[0].Count != (Count{}) {
		t.Errorf("Residency(empty) = %+v, %v; want 0/0 pages", r, err)
	}
	for _, op := range []func(string) (Result, error){Evict, Warm} {
		res, err := op(path)
		if err != nil || !res.Verified || res.After.Count != (Count{}) {
			t.Errorf("%s(empty) = %+v, %v; want verified 0/0", res.Op, res, err)
		}
	}
}

func TestRanges(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", testSize)
	if res, err := Evict(path); err != nil || !res.Verified {
		t.Fatalf("Evict = %+v, %v", res, err)
	}
	// Read the first MiB back: it is resident, the last 4 MiB are not
	// (read-ahead goes forward by far less than 11 MiB).
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(make([]byte, 1<<20), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ps := int64(os.Getpagesize())
	head, tail := Range{0, 1 << 20}, Range{testSize - 4<<20, 0}
	r, err := Residency(path, head, tail)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Ranges[0].Count, (Count{(1 << 20) / ps, (1 << 20) / ps}); got != want {
		t.Errorf("range %+v = %v; want %v", head, got, want)
	}
	if got := r.Ranges[1].Count; got.Resident != 0 || got.Total != (4<<20+ps-1)/ps+1 && got.Total != (4<<20+ps-1)/ps {
		t.Errorf("range %+v = %v; want 0 resident of about %d", tail, got, (4<<20)/ps)
	}
	if r.Resident < (1<<20)/ps || r.Resident == r.Total {
		t.Errorf("whole file %v; want at least the first MiB, not all", r.Count)
	}
}

func TestErrors(t *testing.T) {
	dir := pagecachetest.DiskDir(t)
	path := pagecachetest.CachedFile(t, dir, "f", 4096)
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	ops := map[string]func(string) error{
		"Residency": func(p string) error { _, err := Residency(p); return err },
		"Evict":     func(p string) error { _, err := Evict(p); return err },
		"Warm":      func(p string) error { _, err := Warm(p); return err },
	}
	tests := []struct {
		path, want string
		noCache    bool // the error wraps ErrNoPageCache
	}{
		{filepath.Join(dir, "nope"), "no such file", false},
		{dir, "a directory, not a regular file", true},
		{fifo, "a named pipe (FIFO), not a regular file", true},
		{"/dev/null", "a device, not a regular file", true},
		{"/proc/self/status", "a file of procfs", true},
		{"/sys/kernel/profiling", "a file of sysfs", true},
	}
	for _, tt := range tests {
		if _, err := os.Stat(tt.path); tt.noCache && err != nil {
			t.Logf("%s: %v; skipped", tt.path, err)
			continue
		}
		for name, op := range ops {
			err := pagecachetest.WithTimeout(t, 10*time.Second, func() error { return op(tt.path) })
			if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, ErrNoPageCache) != tt.noCache {
				t.Errorf("%s(%q) = %v; want an error containing %q (ErrNoPageCache: %v)", name, tt.path, err, tt.want, tt.noCache)
			}
		}
	}
	if _, err := Residency(path, Range{4000, 200}); err == nil || !strings.Contains(err.Error(), "outside the file") {
		t.Errorf("Residency(%q, 4000+200) = %v; want outside the file", path, err)
	}
}

// TestMain doubles as the helper process of TestMappedElsewhere: with
// PAGECACHE_TEST_MAP set it maps that file, touches every page (and mlocks it
// when PAGECACHE_TEST_LOCK is set), says "ready" and waits for stdin to close.
// With PAGECACHE_TEST_EVICT set it evicts that file and prints the Result.
func TestMain(m *testing.M) {
	if path := os.Getenv("PAGECACHE_TEST_MAP"); path != "" {
		os.Exit(mapAndWait(path, os.Getenv("PAGECACHE_TEST_LOCK") != ""))
	}
	if path := os.Getenv("PAGECACHE_TEST_EVICT"); path != "" {
		res, err := Options{Sync: os.Getenv("PAGECACHE_TEST_SYNC") != ""}.Evict(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		json.NewEncoder(os.Stdout).Encode(res)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func mapAndWait(path string, lock bool) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	st, _ := f.Stat()
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if lock {
		if err := unix.Mlock(m); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	var sum byte
	for i := 0; i < len(m); i += os.Getpagesize() {
		sum += m[i]
	}
	fmt.Printf("ready %d\n", sum)
	bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

func TestMappedElsewhere(t *testing.T) {
	dir := pagecachetest.DiskDir(t)
	for _, tt := range []struct {
		lock bool
		want Reason
	}{{false, ReasonMappedElsewhere}, {true, ReasonLocked}} {
		path := pagecachetest.CachedFile(t, dir, string(tt.want[:3]), 1<<20)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PAGECACHE_TEST_MAP="+path)
		if tt.lock {
			cmd.Env = append(cmd.Env, "PAGECACHE_TEST_LOCK=1")
		}
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "ready") {
			stdin.Close()
			cmd.Wait()
			t.Skipf("helper process could not map the file (lock=%v): %q %v", tt.lock, line, err)
		}
		res, err := Evict(path)
		stdin.Close()
		cmd.Wait()
		if err != nil {
			t.Fatal(err)
		}
		pid := fmt.Sprint(cmd.Process.Pid)
		all := []Span{{0, res.After.Total - 1}}
		if res.Verified || len(res.Reasons) != 1 || res.Reasons[0].Reason != tt.want || res.After.Resident != res.After.Total ||
			res.Reasons[0].Pages != res.After.Resident || !strings.Contains(res.Reasons[0].Detail, pid) ||
			!slices.Equal(res.Reasons[0].Spans, all) {
			t.Errorf("Evict(file mapped by pid %s, lock %v) = verified %v, after %v, reasons %+v; want %q naming the pid, spans %v",
				pid, tt.lock, res.Verified, res.After.Count, res.Reasons, tt.want, all)
		}
	}
}

// TestUnverifiable runs Evict as an unprivileged user on a file it may read
// but neither owns nor may write. Linux's mincore then reports every page
// resident whatever the cache holds, so the result must say unverifiable,
// not "evicted" and not "stayed".
func TestUnverifiable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a helper process as another user")
	}
	dir := pagecachetest.DiskDir(t)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := pagecachetest.CachedFile(t, dir, "f", 1<<20)
	// The test binary's own directory is private: copy it where nobody can run it.
	bin := filepath.Join(dir, "pagecache.test")
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(dst, src)
	src.Close()
	if cerr := dst.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	if res, err := Evict(path); err != nil || !res.Verified {
		t.Fatalf("Evict as root = %+v, %v; want verified", res, err)
	}
	helper := func(sync bool) *exec.Cmd {
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Env = append(os.Environ(), "PAGECACHE_TEST_EVICT="+path)
		if sync {
			cmd.Env = append(cmd.Env, "PAGECACHE_TEST_SYNC=1")
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		return cmd
	}
	// Without Sync, a kernel that refuses cachestat to a non-owner leaves no
	// way to find dirty pages: the eviction is refused, not done blind.
	noSync, err := helper(false).CombinedOutput()
	refused := err != nil && strings.Contains(string(noSync), ErrNeedSync.Error())
	cmd := helper(true)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("helper process as uid 65534: %v", err)
	}
	var res Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	if res.After.Method == "cachestat" {
		// A kernel whose cachestat answers non-owners (6.5 until it gained
		// mincore's permission check) gives the true count: nothing to distrust.
		if !res.Verified || resident(t, path).Resident != 0 {
			t.Errorf("Evict as uid 65534 counted by cachestat = verified %v, after %v; want verified, 0 resident", res.Verified, res.After.Count)
		}
		return
	}
	// This kernel refuses cachestat to a non-owner (EPERM), so the count
	// fell back to mincore, which lies to non-owners.
	if !refused {
		t.Errorf("Evict without Sync as uid 65534, no cachestat: %s; want refused with ErrNeedSync", noSync)
	}
	if res.Verified || res.After.Unverifiable == "" || len(res.Reasons) != 1 || res.Reasons[0].Reason != ReasonUnverifiable {
		t.Errorf("Evict as uid 65534 = verified %v, after %+v, reasons %+v; want unverifiable", res.Verified, res.After, res.Reasons)
	}
	// The lie itself: the unprivileged reading says resident, ours says not.
	if c := resident(t, path); c.Resident != 0 || res.After.Resident != res.After.Total {
		t.Errorf("root reads %v, uid 65534 reads %v; want 0 and all (the kernel's answer to a non-owner)", c, res.After.Count)
	}
}

// TestMethodsAgree checks the quick count Evict and Warm use (cachestat where
// the kernel has it) against mincore, page for page, on a file in three
// states.
func TestMethodsAgree(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", testSize)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Where the kernel has cachestat the quick count must use it, or this
	// test would compare mincore with itself.
	want := "mincore"
	if hasCachestat(f) {
		want = "cachestat"
	} else {
		t.Log("no cachestat on this kernel: both counts are mincore's")
	}
	check := func(state string) {
		t.Helper()
		q, err := host.measure(f, testSize, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		m, err := host.measure(f, testSize, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if q.Method != want || m.Method != "mincore" {
			t.Fatalf("%s: quick count by %q, page count by %q; want %q and mincore", state, q.Method, m.Method, want)
		}
		if q.Count != m.Count {
			t.Errorf("%s: %s counts %v, %s counts %v; want equal", state, q.Method, q.Count, m.Method, m.Count)
		}
	}
	check("cached")
	if _, err := Evict(path); err != nil {
		t.Fatal(err)
	}
	check("evicted")
	// No read-ahead: it could still be filling pages between the two counts.
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_RANDOM); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(make([]byte, 3<<20), 5<<20); err != nil {
		t.Fatal(err)
	}
	check("partly read")
}

// TestDirty dirties a middle part of a cached file without syncing it.
// Without Sync, Evict must drop the clean pages, leave the dirty ones dirty
// (no write-back started) and name them; with Sync it writes them back and
// drops every page.
func TestDirty(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", 4<<20)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !hasCachestat(f) {
		t.Skip("no cachestat (Linux < 6.5): dirty pages cannot be told")
	}
	ps := int64(os.Getpagesize())
	const off, n = 1 << 20, 1 << 20
	if _, err := f.WriteAt(make([]byte, n), off); err != nil {
		t.Fatal(err)
	}
	res, err := Evict(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Span{{off / ps, (off+n)/ps - 1}}
	if res.Verified || res.Sync || res.After.Resident != n/ps || len(res.Reasons) != 1 || res.Reasons[0].Reason != ReasonDirty ||
		res.Reasons[0].Pages != n/ps || !slices.Equal(res.Reasons[0].Spans, want) {
		t.Errorf("Evict(partly dirty file) = verified %v, %v → %v, reasons %+v; want the %d dirty pages %v to stay, named dirty",
			res.Verified, res.Before.Count, res.After.Count, res.Reasons, n/ps, want)
	}
	var cs unix.Cachestat_t
	if err := unix.Cachestat(uint(f.Fd()), &unix.CachestatRange{}, &cs, 0); err != nil {
		t.Fatal(err)
	}
	if cs.Writeback != 0 || cs.Dirty != uint64(n/ps) {
		t.Errorf("after Evict without Sync: %d pages dirty, %d under write-back; want %d dirty, none written back", cs.Dirty, cs.Writeback, n/ps)
	}
	res, err = Options{Sync: true}.Evict(path)
	if err != nil || !res.Verified || !res.Sync || res.After.Resident != 0 {
		t.Errorf("Evict with Sync = %+v, %v; want verified, no page resident", res, err)
	}
	if c := resident(t, path); c.Resident != 0 {
		t.Errorf("after Evict with Sync: %v; want none resident", c)
	}
}

// TestPartlyLocked locks 2 MiB in the middle of a cached file: the eviction
// must drop every other page, not be verified, and name exactly the locked
// pages and this process.
func TestPartlyLocked(t *testing.T) {
	const size, off, n = 32 << 20, 8 << 20, 2 << 20
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", size)
	pagecachetest.Lock(t, path, off, n)
	ps := int64(os.Getpagesize())
	for _, o := range []Options{{}, {Mincore: true}} {
		res, err := o.Evict(path)
		if err != nil {
			t.Fatal(err)
		}
		want := []Span{{off / ps, (off+n)/ps - 1}}
		if res.Verified || res.After.Resident != n/ps || len(res.Reasons) != 1 || res.Reasons[0].Reason != ReasonLocked ||
			!slices.Equal(res.Reasons[0].Spans, want) || !strings.Contains(res.Reasons[0].Detail, fmt.Sprintf("pid %d (this process)", os.Getpid())) {
			t.Errorf("%+v.Evict(2 MiB locked) = verified %v, %v → %v, reasons %+v; want %d pages %v locked by this process",
				o, res.Verified, res.Before.Count, res.After.Count, res.Reasons, n/ps, want)
		}
		if c := resident(t, path); c.Resident != n/ps {
			t.Errorf("after %+v.Evict: %v; want the %d locked pages only", o, c, n/ps)
		}
	}
}

// TestNeedSync evicts on a kernel without cachestat: without Sync the dirty
// pages cannot be found, so the eviction is refused; with Sync it is done.
func TestNeedSync(t *testing.T) {
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", 1<<20)
	if _, err := evict(linux{}, path, true, false); !errors.Is(err, ErrNeedSync) {
		t.Errorf("evict without cachestat nor sync = %v; want ErrNeedSync", err)
	}
	if c := resident(t, path); c.Resident != c.Total {
		t.Errorf("after the refused eviction: %v; want every page still resident", c)
	}
	if res, err := evict(linux{}, path, true, true); err != nil || !res.Verified {
		t.Errorf("evict without cachestat, with sync = %+v, %v; want verified", res, err)
	}
}

// stayed adds up the pages of reasons.
func stayed(reasons []Stay) int64 {
	var n int64
	for _, s := range reasons {
		n += s.Pages
	}
	return n
}

// TestParallelScan checks the split of a window across goroutines: pages
// read on either side of the split points are counted where they are.
func TestParallelScan(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	const size = 3*parallelMin + 5<<20 // 3 workers, chunks of ~65.7 MiB
	path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", size)
	if res, err := Evict(path); err != nil || !res.Verified {
		t.Fatalf("Evict = %+v, %v", res, err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_RANDOM); err != nil {
		t.Fatal(err)
	}
	ps := int64(os.Getpagesize())
	chunk := ((size/3 + ps - 1) / ps) * ps
	read := []Range{{0, ps}, {chunk - ps, 2 * ps}, {2*chunk - ps, 2 * ps}, {size - ps, ps}}
	for _, r := range read {
		if _, err := f.ReadAt(make([]byte, r.Len), r.Off); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Options{Mincore: true}.Residency(path, read...)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range read {
		if c := got.Ranges[i].Count; c.Resident != c.Total || c.Total != r.Len/ps {
			t.Errorf("range %+v = %v; want all %d pages resident", r, c, r.Len/ps)
		}
	}
	if got.Resident != 6 {
		t.Errorf("whole file %v; want the 6 pages read", got.Count)
	}
	quick, err := Residency(path)
	if err != nil || quick.Count != got.Count {
		t.Errorf("default count %v (%s), %v; want mincore's %v", quick.Count, quick.Method, err, got.Count)
	}
}

// hasCachestat reports whether this kernel answers cachestat(2) on f.
func hasCachestat(f *os.File) bool {
	var cs unix.Cachestat_t
	return unix.Cachestat(uint(f.Fd()), &unix.CachestatRange{}, &cs, 0) == nil
}

// TestNoCachestatFallsBack runs the default (quick) count on a platform
// without cachestat, as on Linux before 6.5: every reading must come from
// mincore, and eviction and warm-up must still verify against it.
func TestNoCachestatFallsBack(t *testing.T) {
	noCS := linux{}
	var calls int
	failing := linux{cachestat: func(uint, *unix.CachestatRange, *unix.Cachestat_t, uint) error {
		calls++
		return unix.ENOSYS
	}}
	for _, p := range []linux{noCS, failing} {
		path := pagecachetest.CachedFile(t, pagecachetest.DiskDir(t), "f", testSize)
		pages := int64((testSize + os.Getpagesize() - 1) / os.Getpagesize())
		ev, err := evict(p, path, true, true)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Before.Method != "mincore" || ev.After.Method != "mincore" || ev.Before.Resident != pages ||
			!ev.Verified || ev.After.Resident != 0 {
			t.Errorf("evict without cachestat = %s %v → %s %v, verified %v; want mincore all → none, verified",
				ev.Before.Method, ev.Before.Count, ev.After.Method, ev.After.Count, ev.Verified)
		}
		w, err := warm(p, path, true)
		if err != nil {
			t.Fatal(err)
		}
		if w.After.Method != "mincore" || !w.Verified || w.After.Resident != pages {
			t.Errorf("warm without cachestat = %s %v, verified %v; want mincore, all %d pages", w.After.Method, w.After.Count, w.Verified, pages)
		}
		if ev.Before.Dirty != 0 || w.After.Dirty != 0 {
			t.Errorf("dirty counts %d, %d without cachestat; want 0 (unknown)", ev.Before.Dirty, w.After.Dirty)
		}
	}
	if calls == 0 {
		t.Error("the failing cachestat was never called: the fallback path was not taken through it")
	}
}

// TestOverlay mounts an overlay file system: cachestat on its files counts
// the overlay's own, empty cache, so counts must come from mincore (which
// maps the real file), and an eviction without Sync is refused (dirty pages
// of the real file cannot be found) rather than verified on a count of 0.
func TestOverlay(t *testing.T) {
	dir := pagecachetest.DiskDir(t)
	for _, d := range []string{"lower", "upper", "work", "merged"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pagecachetest.CachedFile(t, filepath.Join(dir, "lower"), "f", 1<<20)
	merged := filepath.Join(dir, "merged")
	opts := fmt.Sprintf("lowerdir=%s/lower,upperdir=%s/upper,workdir=%s/work", dir, dir, dir)
	if err := unix.Mount("overlay", merged, "overlay", 0, opts); err != nil {
		t.Skipf("cannot mount an overlay here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(merged, 0) })
	path := filepath.Join(merged, "f")
	r, err := Residency(path)
	if err != nil || r.Method != "mincore" || r.Resident != r.Total || r.Total != (1<<20)/int64(os.Getpagesize()) {
		t.Errorf("Residency(overlay file) = %v by %q, %v; want every page resident, by mincore", r.Count, r.Method, err)
	}
	if _, err := Evict(path); !errors.Is(err, ErrNeedSync) || !strings.Contains(err.Error(), "overlayfs") {
		t.Errorf("Evict(overlay file) = %v; want ErrNeedSync naming overlayfs", err)
	}
	res, err := Options{Sync: true}.Evict(path)
	if err != nil || !res.Verified || res.After.Method != "mincore" {
		t.Errorf("Evict(overlay file) with Sync = %+v, %v; want verified by mincore", res, err)
	}
	if c := resident(t, filepath.Join(dir, "lower", "f")); c.Resident != 0 {
		t.Errorf("lower file after the overlay's eviction: %v; want none resident", c)
	}
}
