package live

import (
	"fmt"
	"sort"
	"strings"
)

// BasePATH is the PATH a re-run gets when its record sets none: the
// system's own folders, nothing of the user's.
const BasePATH = "/usr/bin:/bin:/usr/sbin:/sbin"

// baseNames are the variables of this process a re-run keeps (PATH only
// when the record sets none, as BasePATH); every other variable of this
// process is left out.
var baseNames = []string{"HOME", "TMPDIR", "LANG"}

// Refused is a variable a recorded environment sets that a re-run does not
// pass on: a loader or injection variable, which would load code from
// outside the checkout into the engine, or a malformed one.
type Refused struct {
	Name string // the variable as recorded
	Why  string
}

// String names the variable and why it was refused.
func (r Refused) String() string { return r.Name + ": " + r.Why + "; not passed to the re-run" }

// injectionPrefixes and injectionNames are the variables that make a
// dynamic loader, libc, a shell or an interpreter load code or data named
// by the variable: the glibc loader and its unsecure-environment list, the
// macOS dyld and XPC twins, bash's startup and exported functions, and the
// interpreters' preload options.
var (
	injectionPrefixes = []string{"LD_", "DYLD_", "__XPC_DYLD_", "__XPC_LD_", "BASH_FUNC_"}
	injectionNames    = map[string]bool{
		"GCONV_PATH": true, "GETCONF_DIR": true, "GLIBC_TUNABLES": true, "HOSTALIASES": true,
		"LOCALDOMAIN": true, "LOCPATH": true, "MALLOC_TRACE": true, "NIS_PATH": true,
		"NLSPATH": true, "RESOLV_HOST_CONF": true, "RES_OPTIONS": true, "TZDIR": true,
		"BASH_ENV": true, "ENV": true, "PS4": true, "SHELLOPTS": true, "BASHOPTS": true,
		"IFS": true, "PROMPT_COMMAND": true, "CDPATH": true,
		"PYTHONPATH": true, "PYTHONHOME": true, "PYTHONSTARTUP": true, "PYTHONUSERBASE": true,
		"PERL5LIB": true, "PERL5OPT": true, "PERLLIB": true, "PERL5DB": true,
		"RUBYLIB": true, "RUBYOPT": true, "NODE_OPTIONS": true, "NODE_PATH": true,
		"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "CLASSPATH": true,
		"LUA_INIT": true, "LUA_PATH": true, "LUA_CPATH": true,
	}
)

// Injection reports why the variable name may not reach a re-run ("" when
// it may): a loader or injection variable, or a name no environment can
// hold.
func Injection(name string) string {
	switch {
	case name == "":
		return "an empty name"
	case strings.ContainsAny(name, "=\x00"):
		return "a name holding '=' or NUL"
	case injectionNames[name]:
		return "a loader or injection variable"
	}
	for _, p := range injectionPrefixes {
		if strings.HasPrefix(name, p) {
			return fmt.Sprintf("a loader or injection variable (%s*)", p)
		}
	}
	return ""
}

// Environ builds a re-run's environment from an allow-list, never from
// this process's whole environment: PATH (BasePATH), HOME, TMPDIR and LANG
// as this process has them (getenv; an empty one is left out), then the
// variables of this process named by pass (a test's fake engine finds its
// replay so), then the recorded variables, each overriding the base. A
// variable Injection refuses, or a recorded value holding NUL, is left out
// and returned in refused, sorted by name. env is sorted by name.
func Environ(recorded map[string]string, getenv func(string) string, pass []string) (env []string, refused []Refused) {
	vars := map[string]string{"PATH": BasePATH}
	for _, n := range append(append([]string(nil), baseNames...), pass...) {
		if why := Injection(n); why != "" {
			refused = append(refused, Refused{Name: n, Why: why})
			continue
		}
		if v := getenv(n); v != "" {
			vars[n] = v
		}
	}
	for n, v := range recorded {
		why := Injection(n)
		if why == "" && strings.ContainsRune(v, 0) {
			why = "a value holding NUL"
		}
		if why != "" {
			refused = append(refused, Refused{Name: n, Why: why})
			continue
		}
		vars[n] = v
	}
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		env = append(env, n+"="+vars[n])
	}
	sort.Slice(refused, func(i, j int) bool { return refused[i].Name < refused[j].Name })
	return env, refused
}
