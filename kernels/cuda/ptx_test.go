package cuda

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"saji/kernels/gpu"
	"saji/kernels/quant"
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

// preludeHarness runs prelude.h's rounding functions on the host: it reads
// float bit patterns (4 bytes, little-endian) on stdin and writes, for
// each, the bits of k_round_half, k_rint and k_round and the half of
// k_float_to_half.
const preludeHarness = `#include "prelude.h"
#include <cstdio>
int main() {
  unsigned char in[4];
  while (fread(in, 1, 4, stdin) == 4) {
    unsigned u = in[0] | in[1] << 8 | in[2] << 16 | (unsigned)in[3] << 24;
    float x = k_from_bits(u);
    float lg = x > 0.0f ? k_log(x) : 0.0f;
    unsigned out[5] = {k_to_bits(k_round_half(x)), k_to_bits(k_rint(x)), k_to_bits(k_round(x)), k_float_to_half(x), k_to_bits(lg)};
    for (unsigned v : out) {
      unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
      fwrite(b, 1, 4, stdout);
    }
  }
  return 0;
}
`

// preludeInputs are the floats of TestPreludeRounding: a sweep over all
// bit patterns, and the edges of the roundings (ties to even, the F16
// range and its subnormals, 2^23, infinities, NaN) with their neighbours.
func preludeInputs() []float32 {
	var xs []float32
	for u := uint64(0); u < 1<<32; u += 65521 { // a prime stride: every exponent, many mantissas
		xs = append(xs, math.Float32frombits(uint32(u)))
	}
	edges := []float32{0, 0.5, 1.5, 2.5, 126.5, 127.5, 65504, 65519, 65520, 65535, 65536,
		0x1p-14, 0x1p-24, 0x1.8p-25, 0x1p-25, 0x1.ffcp-15, 0x1.002p0, 0x1.003p0, 0x1.001p0,
		8388607.5, 8388608, 16777215, float32(math.Inf(1)), float32(math.NaN()), 1e-45, 3.4e38}
	for _, e := range edges {
		for _, x := range []float32{e, -e} {
			b := math.Float32bits(x)
			for _, d := range []uint32{0, 1, ^uint32(0)} {
				xs = append(xs, math.Float32frombits(b+d))
			}
		}
	}
	return xs
}

// sameFloat reports whether a and b have the same bits, or are both NaN.
func sameFloat(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

// TestPreludeRounding checks prelude.h's roundings, compiled for the host
// as the emulator compiles them, against Go's: k_round_half and
// k_float_to_half against quant's F16 conversions (ties to even), k_rint
// against math.RoundToEven, k_round against math.Round. The quantize
// kernels and every F16 product depend on them to the bit. It checks
// k_log, the logarithm of ssm_scan's softplus, against math.Log too.
func TestPreludeRounding(t *testing.T) {
	if _, err := exec.LookPath("g++"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("g++ is not installed")
		}
		t.Skip("g++ is not installed")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "harness.cpp"), filepath.Join(dir, "harness")
	if err := os.WriteFile(src, []byte(preludeHarness), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("g++", "-std=c++17", "-O2", "-ffp-contract=off", "-DSAJI_CUDA_EMU", "-I", wd, "-o", bin, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("g++ prelude harness: %v\n%s", err, b)
	}
	xs := preludeInputs()
	in := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		in = binary.LittleEndian.AppendUint32(in, math.Float32bits(x))
	}
	cmd = exec.Command(bin)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("prelude harness: %v", err)
	}
	if len(out) != 20*len(xs) {
		t.Fatalf("prelude harness wrote %d bytes, want %d", len(out), 20*len(xs))
	}
	bad := 0
	for i, x := range xs {
		word := func(j int) uint32 { return binary.LittleEndian.Uint32(out[20*i+4*j:]) }
		h := quant.F32ToF16(x)
		checks := []struct {
			name      string
			got, want float32
		}{
			{"k_round_half", math.Float32frombits(word(0)), quant.F16ToF32(h)},
			{"k_rint", math.Float32frombits(word(1)), float32(math.RoundToEven(float64(x)))},
			{"k_round", math.Float32frombits(word(2)), float32(math.Round(float64(x)))},
		}
		for _, c := range checks {
			if !sameFloat(c.got, c.want) {
				t.Errorf("%s(%g [%#08x]) = %g [%#08x], want %g [%#08x]", c.name, x, math.Float32bits(x),
					c.got, math.Float32bits(c.got), c.want, math.Float32bits(c.want))
				bad++
			}
		}
		if got := uint16(word(3)); got != h && !(x != x && got&0x7c00 == 0x7c00 && got&0x3ff != 0) {
			t.Errorf("k_float_to_half(%g [%#08x]) = %#04x, want %#04x", x, math.Float32bits(x), got, h)
			bad++
		}
		// k_log, which softplus calls, within 2.5e-7 of the logarithm.
		if want := math.Log(float64(x)); x >= 0x1p-126 && !math.IsInf(want, 0) {
			if got := float64(math.Float32frombits(word(4))); math.Abs(got-want) > 2.5e-7*math.Abs(want)+1e-12 {
				t.Errorf("k_log(%g) = %g, want %g", x, got, want)
				bad++
			}
		}
		if bad > 20 {
			t.Fatal("too many differences")
		}
	}
}
