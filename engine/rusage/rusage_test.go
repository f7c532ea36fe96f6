package rusage

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"unsafe"
)

// TestInfoV2Layout pins struct rusage_info_v2 as <sys/resource.h> declares
// it: the kernel writes 160 bytes, and the two fields read sit at offsets
// 64 and 72. A field added, dropped or retyped fails here on every platform.
func TestInfoV2Layout(t *testing.T) {
	var v infoV2
	for _, tt := range []struct {
		what      string
		got, want uintptr
	}{
		{"Sizeof(rusage_info_v2)", unsafe.Sizeof(v), 160},
		{"Offsetof(ri_resident_size)", unsafe.Offsetof(v.ResidentSize), 64},
		{"Offsetof(ri_phys_footprint)", unsafe.Offsetof(v.PhysFootprint), 72},
		{"Offsetof(ri_diskio_byteswritten)", unsafe.Offsetof(v.DiskioByteswritten), 152},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %d; want %d", tt.what, tt.got, tt.want)
		}
	}
}

func TestOfSelf(t *testing.T) {
	got, err := Of(os.Getpid())
	if runtime.GOOS != "darwin" {
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("Of(self) on %s = %+v, %v; want ErrUnsupported", runtime.GOOS, got, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Of(self) = %v", err)
	}
	// A Go test binary has touched at least its heap and stacks: a few MB.
	if got.PhysFootprint < 1<<20 || got.ResidentSize < 1<<20 {
		t.Errorf("Of(self) = %+v; want a footprint and resident size of at least 1 MiB", got)
	}
	// Growing the heap by 64 MiB of touched pages must show in the footprint.
	buf := make([]byte, 64<<20)
	for i := range buf {
		if i%4096 == 0 {
			buf[i] = 1
		}
	}
	after, err := Of(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after.PhysFootprint < got.PhysFootprint+32<<20 {
		t.Errorf("Of(self) after touching 64 MiB = %d bytes; want at least %d", after.PhysFootprint, got.PhysFootprint+32<<20)
	}
	runtime.KeepAlive(buf)
}

func TestOfGone(t *testing.T) {
	if runtime.GOOS != "darwin" {
		t.Skip("proc_pid_rusage exists only on darwin")
	}
	// pid 0x7ffffff0 is far above darwin's pid limit (99999).
	if _, err := Of(0x7ffffff0); !errors.Is(err, ErrNoProcess) {
		t.Errorf("Of(no such pid) = %v; want ErrNoProcess", err)
	}
}
