package cuda

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"saji/kernels/gpu"
)

// ptxEntry is a kernel entry of the PTX: its name and its parameters' PTX
// types (.u64, .u32, .f32).
type ptxEntry struct {
	name   string
	params []string
}

var (
	entryRE = regexp.MustCompile(`(?m)^\.visible \.entry (\w+)\(\n?((?:\s*\.param [^\n]*\n)*)\)`)
	paramRE = regexp.MustCompile(`\.param (\.\w+) \w+`)
)

// parseEntries returns the visible kernel entries of a PTX module.
func parseEntries(ptx string) []ptxEntry {
	var es []ptxEntry
	for _, m := range entryRE.FindAllStringSubmatch(ptx, -1) {
		e := ptxEntry{name: m[1]}
		for _, p := range paramRE.FindAllStringSubmatch(m[2], -1) {
			e.params = append(e.params, p[1])
		}
		es = append(es, e)
	}
	return es
}

// ptxType is the PTX type clang gives a kernel parameter of kind k.
func ptxType(k gpu.ArgKind) string {
	switch k {
	case gpu.Ptr:
		return ".u64"
	case gpu.I32:
		return ".u32"
	case gpu.F32:
		return ".f32"
	}
	return "?"
}

func TestParseEntries(t *testing.T) {
	tests := []struct {
		name string
		ptx  string
		want []ptxEntry
	}{
		{"none", ".version 6.4\n", nil},
		{"params", ".visible .entry scale(\n\t.param .u64 scale_param_0,\n\t.param .u32 scale_param_1,\n\t.param .f32 scale_param_2\n)\n{\n}\n",
			[]ptxEntry{{"scale", []string{".u64", ".u32", ".f32"}}}},
		{"no params", ".visible .entry nop()\n{\n}\n.visible .entry two(\n\t.param .u64 two_param_0\n)\n",
			[]ptxEntry{{"nop", nil}, {"two", []string{".u64"}}}},
		{"function, not entry", ".visible .func f(\n\t.param .u64 f_param_0\n)\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseEntries(tt.ptx)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d entries %v, want %v", len(got), got, tt.want)
			}
			for i := range got {
				if got[i].name != tt.want[i].name || strings.Join(got[i].params, " ") != strings.Join(tt.want[i].params, " ") {
					t.Errorf("entry %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestPTXKernels checks that the embedded PTX defines every kernel of
// gpu.Kernels with its parameters, and nothing else.
func TestPTXKernels(t *testing.T) {
	entries := map[string]ptxEntry{}
	for _, e := range parseEntries(string(ptxSource)) {
		if _, dup := entries[e.name]; dup {
			t.Errorf("kernel %s is defined twice", e.name)
		}
		entries[e.name] = e
	}
	for _, k := range gpu.Kernels {
		e, ok := entries[k.Name]
		if !ok {
			t.Errorf("kernel %s is missing from kernels.ptx", k.Name)
			continue
		}
		delete(entries, k.Name)
		want := make([]string, len(k.Params))
		for i, p := range k.Params {
			want[i] = ptxType(p.Kind)
		}
		if got := strings.Join(e.params, " "); got != strings.Join(want, " ") {
			t.Errorf("kernel %s has parameters (%s), want (%s)", k.Name, got, strings.Join(want, " "))
		}
	}
	for name := range entries {
		t.Errorf("kernels.ptx defines %s, which is not in gpu.Kernels", name)
	}
}

// TestPTXSelfContained checks that the PTX calls no function it does not
// define (libdevice's, say), which the driver could not link.
func TestPTXSelfContained(t *testing.T) {
	for i, line := range strings.Split(string(ptxSource), "\n") {
		if strings.Contains(line, ".extern") {
			t.Errorf("kernels.ptx:%d: unresolved external: %s", i+1, strings.TrimSpace(line))
		}
	}
	if !bytes.HasPrefix(bytes.TrimSpace(ptxSource), []byte("//")) || !bytes.Contains(ptxSource, []byte(".target sm_70")) {
		t.Error("kernels.ptx does not look like clang's PTX for sm_70")
	}
}

// TestPTXUpToDate regenerates kernels.ptx with gen.sh and compares: the
// committed PTX must be what kernels.cu and prelude.h compile to. Without
// clang-14 it skips, except under CI (CI=true), where it fails.
func TestPTXUpToDate(t *testing.T) {
	if _, err := exec.LookPath("clang-14"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("clang-14 is not installed; CI must check kernels.ptx (apt-get install clang-14)")
		}
		t.Skip("clang-14 is not installed: kernels.ptx not checked against kernels.cu")
	}
	out := filepath.Join(t.TempDir(), "kernels.ptx")
	cmd := exec.Command("sh", "gen.sh", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen.sh: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, ptxSource) {
		t.Errorf("kernels.ptx is stale: run go generate ./kernels/cuda (%d bytes generated, %d committed)", len(got), len(ptxSource))
	}
}

// TestKernelsCompileForHost checks that kernels.cu also compiles as host
// C++ for the emulator (prelude.h with emu/emu.h).
func TestKernelsCompileForHost(t *testing.T) {
	if _, err := os.Stat(filepath.Join("emu", "emu.h")); err != nil {
		t.Skip("emu/emu.h is not there yet")
	}
	if _, err := exec.LookPath("g++"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("g++ is not installed")
		}
		t.Skip("g++ is not installed")
	}
	cmd := exec.Command("g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
		"-DSAJI_CUDA_EMU", "-x", "c++", "kernels.cu")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("g++ -DSAJI_CUDA_EMU kernels.cu: %v\n%s", err, b)
	}
}
