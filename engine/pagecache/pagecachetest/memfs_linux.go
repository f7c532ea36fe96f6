package pagecachetest

import "golang.org/x/sys/unix"

// MemoryFS reports whether dir is on a file system that keeps its files
// only in memory (tmpfs, ramfs, hugetlbfs), where pages cannot be evicted.
// A directory that cannot be examined counts as one: no test should trust it.
func MemoryFS(dir string) bool {
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) != nil {
		return true
	}
	switch uint32(fs.Type) {
	case unix.TMPFS_MAGIC, unix.RAMFS_MAGIC, unix.HUGETLBFS_MAGIC:
		return true
	}
	return false
}
