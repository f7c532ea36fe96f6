// Package pagecachetest gives page-cache tests their files: a fresh
// directory on a disk-backed file system (eviction means nothing on tmpfs)
// and a file written through the page cache and synced, so that every page
// is resident and clean. It is a test helper, imported only from _test.go
// files, and works on Linux only; elsewhere it has no functions.
package pagecachetest
