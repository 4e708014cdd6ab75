package metal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"saji/kernels/gpu"
)

// mslParam is one parameter of a kernel of kernels.metal.
type mslParam struct {
	typ    string // "device const uchar*", "constant int&", "uint3", ...
	name   string
	attr   string // the attribute's name: "buffer", "threadgroup_position_in_grid", ...
	buffer int    // the index of [[buffer(i)]], or -1
}

// mslKernel is a kernel function of kernels.metal.
type mslKernel struct {
	name   string
	params []mslParam
}

var (
	mslComment = regexp.MustCompile(`(?s)//[^\n]*|/\*.*?\*/`)
	mslKernelF = regexp.MustCompile(`\bkernel\s+void\s+(\w+)\s*\(`)
	mslAttr    = regexp.MustCompile(`\[\[\s*(\w+)\s*(?:\(\s*(\d+)\s*\))?\s*\]\]`)
	mslSpace   = regexp.MustCompile(`\s+`)
	mslIdent   = regexp.MustCompile(`^(.*?)\s*\b(\w+)$`)
)

// stripComments removes the comments of MSL source.
func stripComments(src string) string { return mslComment.ReplaceAllString(src, " ") }

// parseMSL returns the kernel functions of MSL source with their
// parameters, in order.
func parseMSL(src string) ([]mslKernel, error) {
	src = stripComments(src)
	var ks []mslKernel
	for _, m := range mslKernelF.FindAllStringSubmatchIndex(src, -1) {
		name := src[m[2]:m[3]]
		open := m[1] - 1
		depth, end := 0, -1
		for i := open; i < len(src); i++ {
			switch src[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("kernel %s: unbalanced parentheses", name)
		}
		k := mslKernel{name: name}
		for _, text := range splitParams(src[open+1 : end]) {
			p, err := parseParam(text)
			if err != nil {
				return nil, fmt.Errorf("kernel %s: %w", name, err)
			}
			k.params = append(k.params, p)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// splitParams splits a parameter list at its top-level commas.
func splitParams(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(', '[', '<':
			depth++
		case ')', ']', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

func parseParam(text string) (mslParam, error) {
	p := mslParam{buffer: -1}
	if m := mslAttr.FindStringSubmatch(text); m != nil {
		p.attr = m[1]
		if m[1] == "buffer" {
			if m[2] == "" {
				return p, fmt.Errorf("parameter %q: [[buffer]] without an index", text)
			}
			p.buffer, _ = strconv.Atoi(m[2])
		}
		text = mslAttr.ReplaceAllString(text, " ")
	}
	text = strings.TrimSpace(mslSpace.ReplaceAllString(text, " "))
	m := mslIdent.FindStringSubmatch(text)
	if m == nil || m[1] == "" {
		return p, fmt.Errorf("cannot read the parameter %q", text)
	}
	p.typ = strings.ReplaceAll(strings.ReplaceAll(m[1], " *", "*"), " &", "&")
	p.name = m[2]
	return p, nil
}

// kindOf returns the spec's kind of a [[buffer]] parameter's MSL type.
func kindOf(typ string) (gpu.ArgKind, bool) {
	switch {
	case strings.HasPrefix(typ, "device ") && strings.HasSuffix(typ, "*"):
		return gpu.Ptr, true
	case typ == "constant int&":
		return gpu.I32, true
	case typ == "constant float&":
		return gpu.F32, true
	}
	return 0, false
}

// builtinTypes are the thread-position attributes kernels.metal may use,
// with the type each is declared with (the emulator relies on these).
var builtinTypes = map[string]string{
	"threadgroup_position_in_grid":   "uint3",
	"thread_index_in_threadgroup":    "uint",
	"simdgroup_index_in_threadgroup": "uint",
	"thread_index_in_simdgroup":      "uint",
}

func TestMSLDefinesEveryKernel(t *testing.T) {
	ks, err := parseMSL(mslSource)
	if err != nil {
		t.Fatal(err)
	}
	defined := make(map[string]mslKernel)
	for _, k := range ks {
		if _, dup := defined[k.name]; dup {
			t.Errorf("kernel %s is defined twice", k.name)
		}
		defined[k.name] = k
		if _, ok := gpu.Lookup(k.name); !ok {
			t.Errorf("kernel %s is not in gpu.Kernels", k.name)
		}
	}
	for _, spec := range gpu.Kernels {
		k, ok := defined[spec.Name]
		if !ok {
			t.Errorf("kernels.metal has no kernel %s", spec.Name)
			continue
		}
		var bufs []mslParam
		for _, p := range k.params {
			if p.attr == "buffer" {
				bufs = append(bufs, p)
				continue
			}
			want, ok := builtinTypes[p.attr]
			switch {
			case !ok:
				t.Errorf("%s: parameter %s has neither [[buffer(i)]] nor a known builtin attribute (%q)", k.name, p.name, p.attr)
			case p.typ != want:
				t.Errorf("%s: builtin %s is declared %s, want %s", k.name, p.attr, p.typ, want)
			}
		}
		if len(bufs) != len(spec.Params) {
			t.Errorf("%s: %d [[buffer]] parameters, the spec has %d", k.name, len(bufs), len(spec.Params))
			continue
		}
		for i, p := range bufs {
			sp := spec.Params[i]
			kind, ok := kindOf(p.typ)
			switch {
			case p.buffer != i:
				t.Errorf("%s: parameter %d (%s) is at [[buffer(%d)]]", k.name, i, p.name, p.buffer)
			case p.name != sp.Name:
				t.Errorf("%s: parameter %d is %s, the spec's is %s", k.name, i, p.name, sp.Name)
			case !ok:
				t.Errorf("%s: parameter %s has the type %q, which is no spec kind", k.name, p.name, p.typ)
			case kind != sp.Kind:
				t.Errorf("%s: parameter %s is %v (%s), the spec says %v", k.name, p.name, kind, p.typ, sp.Kind)
			}
		}
	}
}

func TestParseMSL(t *testing.T) {
	src := `
// kernel void commented_out(int x)
kernel void a(device const uchar* w [[buffer(0)]], constant int & n [[ buffer( 1 ) ]],
              uint3 tg [[threadgroup_position_in_grid]]) { f(g(1, 2)); }
/* kernel void b() */
kernel void c(device float *dst [[buffer(0)]]) {}
`
	ks, err := parseMSL(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []mslKernel{
		{"a", []mslParam{
			{"device const uchar*", "w", "buffer", 0},
			{"constant int&", "n", "buffer", 1},
			{"uint3", "tg", "threadgroup_position_in_grid", -1},
		}},
		{"c", []mslParam{{"device float*", "dst", "buffer", 0}}},
	}
	if fmt.Sprint(ks) != fmt.Sprint(want) {
		t.Errorf("parseMSL =\n%v\nwant\n%v", ks, want)
	}
	if _, err := parseMSL("kernel void x(int a"); err == nil {
		t.Error("an unbalanced parameter list parsed")
	}
}

// cxxCompiler returns a C++ compiler for the MSL stand-in, or skips t
// (fails it under CI, where clang-14 must be installed).
func cxxCompiler(t *testing.T) (path string, flags []string) {
	t.Helper()
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"clang++-14", []string{"-Wno-unknown-attributes"}},
		{"clang++", []string{"-Wno-unknown-attributes"}},
		{"g++", []string{"-Wno-attributes"}},
	} {
		if p, err := exec.LookPath(c.name); err == nil {
			return p, c.flags
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no C++ compiler (clang++-14, clang++ or g++): apt-get install clang-14")
	}
	t.Skip("no C++ compiler (clang++-14, clang++ or g++): apt-get install clang-14 to check kernels.metal")
	return "", nil
}

// TestMSLCompilesAsCXX checks kernels.metal's syntax and types with a host
// C++ compiler against testdata/msl/metal_stdlib, a stand-in for Metal's
// standard library: not Metal's compiler, but it catches typos, undeclared
// names, wrong argument counts and type errors before a Mac sees the file.
func TestMSLCompilesAsCXX(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the MSL stand-in is checked on linux")
	}
	cxx, flags := cxxCompiler(t)
	shim, err := filepath.Abs(filepath.Join("testdata", "msl"))
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-x", "c++", "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", "-I", shim}, flags...)
	args = append(args, "kernels.metal")
	out, err := exec.Command(cxx, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", cxx, strings.Join(args, " "), err, out)
	}
}
