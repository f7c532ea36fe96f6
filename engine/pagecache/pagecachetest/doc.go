// Package pagecachetest gives page-cache tests their files: a fresh
// directory on a disk-backed file system (eviction means nothing on tmpfs)
// and a file written through the page cache and synced, so that every page
// is resident and clean; a way to lock part of a file in memory; and a
// timeout for calls that must not block. It is a test helper, imported only
// from _test.go files; everything but WithTimeout works on Linux and darwin
// only (the darwin build is cross-compiled and vetted, not run).
package pagecachetest
