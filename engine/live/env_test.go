package live

import (
	"slices"
	"testing"
)

func TestEnviron(t *testing.T) {
	self := map[string]string{
		"PATH": "/home/me/bin:/usr/bin", "HOME": "/home/me", "TMPDIR": "/tmp/me", "LANG": "C.UTF-8",
		"AWS_SECRET_ACCESS_KEY": "hunter2", "GITHUB_TOKEN": "hunter2", "REPLAY": "/tmp/r.json", "LD_LIBRARY_PATH": "/opt/lib",
	}
	getenv := func(n string) string { return self[n] }
	for _, tt := range []struct {
		name     string
		recorded map[string]string
		pass     []string
		want     []string
		refused  []string
	}{
		{"nothing recorded: the base only, nothing else of this process",
			nil, nil,
			[]string{"HOME=/home/me", "LANG=C.UTF-8", "PATH=" + BasePATH, "TMPDIR=/tmp/me"}, nil},
		{"recorded variables override the base",
			map[string]string{"STRATA_METAL_ARENA_GB": "9", "PATH": "/opt/strata/bin", "LANG": "en_US.UTF-8"}, nil,
			[]string{"HOME=/home/me", "LANG=en_US.UTF-8", "PATH=/opt/strata/bin", "STRATA_METAL_ARENA_GB=9", "TMPDIR=/tmp/me"}, nil},
		{"a passed variable of this process",
			nil, []string{"REPLAY", "UNSET"},
			[]string{"HOME=/home/me", "LANG=C.UTF-8", "PATH=" + BasePATH, "REPLAY=/tmp/r.json", "TMPDIR=/tmp/me"}, nil},
		{"loader and injection variables refused",
			map[string]string{"LD_PRELOAD": "/outside/evil.so", "DYLD_INSERT_LIBRARIES": "/outside/evil.dylib", "GCONV_PATH": "/outside",
				"BASH_FUNC_x%%": "() { :; }", "PYTHONPATH": "/outside", "__XPC_DYLD_LIBRARY_PATH": "/outside", "STRATA_X": "1"}, nil,
			[]string{"HOME=/home/me", "LANG=C.UTF-8", "PATH=" + BasePATH, "STRATA_X=1", "TMPDIR=/tmp/me"},
			[]string{"BASH_FUNC_x%%", "DYLD_INSERT_LIBRARIES", "GCONV_PATH", "LD_PRELOAD", "PYTHONPATH", "__XPC_DYLD_LIBRARY_PATH"}},
		{"a passed loader variable is refused too",
			nil, []string{"LD_LIBRARY_PATH"},
			[]string{"HOME=/home/me", "LANG=C.UTF-8", "PATH=" + BasePATH, "TMPDIR=/tmp/me"}, []string{"LD_LIBRARY_PATH"}},
		{"malformed names and values refused",
			map[string]string{"A=B": "1", "": "x", "NUL": "a\x00b"}, nil,
			[]string{"HOME=/home/me", "LANG=C.UTF-8", "PATH=" + BasePATH, "TMPDIR=/tmp/me"}, []string{"", "A=B", "NUL"}},
	} {
		env, refused := Environ(tt.recorded, getenv, tt.pass)
		if !slices.Equal(env, tt.want) {
			t.Errorf("%s: Environ(%q) = %q; want %q", tt.name, tt.recorded, env, tt.want)
		}
		var names []string
		for _, r := range refused {
			names = append(names, r.Name)
			if r.Why == "" {
				t.Errorf("%s: Environ(%q) refused %q without a reason", tt.name, tt.recorded, r.Name)
			}
		}
		if !slices.Equal(names, tt.refused) {
			t.Errorf("%s: Environ(%q) refused %q; want %q", tt.name, tt.recorded, names, tt.refused)
		}
	}
}
