package cpu

import (
	"os"
	"strings"
	"testing"
)

// kernelSetFor returns the kernel set name, skipping the test with what
// the CPU lacks (say "cpu lacks avx512_vnni") when it cannot run it.
func kernelSetFor(tb testing.TB, name string) *kernelSet {
	tb.Helper()
	if err := CheckKernelSet(name); err != nil {
		tb.Skip(err)
	}
	return buildSet(name)
}

// TestKernelSets checks the sets this CPU reports, their names, the
// aliases SAJI_SIMD takes, and that a set the CPU lacks is refused with
// the flag it lacks.
func TestKernelSets(t *testing.T) {
	sets := KernelSets()
	t.Logf("kernel sets this CPU runs: %v", sets)
	for _, name := range sets {
		b, err := NewWithKernels(1, name)
		if err != nil {
			t.Fatalf("NewWithKernels(%q): %v", name, err)
		}
		if b.Kernels() != name {
			t.Errorf("NewWithKernels(%q).Kernels() = %q", name, b.Kernels())
		}
	}
	for alias, name := range simdAliases {
		if err := CheckKernelSet(alias); (err == nil) != (lacks(name) == "") {
			t.Errorf("CheckKernelSet(%q) = %v, but lacks(%q) = %q", alias, err, name, lacks(name))
		}
	}
	for _, name := range kernelSetNames {
		if why := lacks(name); why != "" && !strings.HasPrefix(why, "cpu lacks ") {
			t.Errorf("lacks(%q) = %q, want \"cpu lacks FLAG\"", name, why)
		}
	}
	if err := CheckKernelSet("nonesuch"); err == nil {
		t.Error("CheckKernelSet(nonesuch) = nil")
	}
	if _, err := NewWithKernels(1, "nonesuch"); err == nil {
		t.Error("NewWithKernels(nonesuch) succeeded")
	}
	if b, err := NewWithKernels(1, "go"); err != nil || b.Kernels() != "go" {
		t.Errorf("NewWithKernels(go) = %v, %v", b, err)
	}
	if len(sets) > 0 && os.Getenv("SAJI_SIMD") == "" {
		if got := New(1).Kernels(); got != sets[len(sets)-1] {
			t.Errorf("New picks %q, want the newest set %q", got, sets[len(sets)-1])
		}
	}
}

// TestSAJISIMD checks that SAJI_SIMD picks each set the CPU runs, that
// off gives the pure-Go kernels, and that a set the CPU cannot run falls
// back to the newest it can.
func TestSAJISIMD(t *testing.T) {
	sets := KernelSets()
	if len(sets) == 0 {
		t.Skip("cpu: no SIMD kernel set runs here")
	}
	for alias, name := range simdAliases {
		t.Setenv("SAJI_SIMD", alias)
		want := name
		if lacks(name) != "" {
			want = sets[len(sets)-1]
		}
		if got := New(1).Kernels(); got != want {
			t.Errorf("SAJI_SIMD=%s: New picks %q, want %q", alias, got, want)
		}
	}
	t.Setenv("SAJI_SIMD", "off")
	if got := New(1).Kernels(); got != "go" {
		t.Errorf("SAJI_SIMD=off: New picks %q", got)
	}
}
