package emu

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"add"}, "REG(add)\n"},
		{[]string{"get_rows_q4_k", "scale"}, "REG(get_rows_q4_k)\nREG(scale)\n"},
	}
	for _, tt := range tests {
		if got := Registry(tt.names); got != tt.want {
			t.Errorf("Registry(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestSourceDir(t *testing.T) {
	dir, err := SourceDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"emu.h", filepath.Join("src", "driver.cpp"), filepath.Join("..", "kernels.cu")} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestBuildError checks that a kernel source that does not compile gives
// the compiler's message.
func TestBuildError(t *testing.T) {
	Require(t)
	dir := t.TempDir()
	sdir, err := SourceDir()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "bad.cu")
	code := "#include \"" + filepath.Join(sdir, "emu.h") + "\"\nKERNEL bad(float *x) { x[0] = undefined_name; }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Build(dir, src, []string{"bad"})
	if err == nil || !strings.Contains(err.Error(), "emu: building the CUDA emulator") || !strings.Contains(err.Error(), "undefined_name") {
		t.Fatalf("error %v", err)
	}
}

// TestBuildAndCache builds an emulator of one kernel and finds it in the
// cache the second time.
func TestBuildAndCache(t *testing.T) {
	Require(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	src := filepath.Join(dir, "one.cu")
	sdir, err := SourceDir()
	if err != nil {
		t.Fatal(err)
	}
	code := "#include \"" + filepath.Join(sdir, "emu.h") + "\"\nKERNEL one(float *x, int n) { if ((int)thread_x() < n) x[thread_x()] = 1; }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := Cached(src, []string{"one"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(lib)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Cached(src, []string{"one"})
	if err != nil || again != lib {
		t.Fatalf("second build: %q, %v; want %q", again, err, lib)
	}
	if info2, err := os.Stat(again); err != nil || !info2.ModTime().Equal(info.ModTime()) {
		t.Errorf("the cached library was rebuilt")
	}
	// Another kernel list is another build.
	other, err := Cached(src, []string{"one", "one"})
	if err != nil || other == lib {
		t.Errorf("another registry: %q, %v (the first build is %q)", other, err, lib)
	}
}

// TestBuildMissingKernel checks that a kernel source lacking a kernel of
// the registry says which, instead of failing to compile the registry.
func TestBuildMissingKernel(t *testing.T) {
	Require(t)
	dir := t.TempDir()
	sdir, err := SourceDir()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "some.cu")
	code := "#include \"" + filepath.Join(sdir, "emu.h") + "\"\n#define TWICE(n) KERNEL n(float *x) { x[0] *= 2; }\n" +
		"KERNEL one(float *x) { x[0] = 1; }\nTWICE(two)\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Build(dir, src, []string{"one", "two", "three", "four"})
	if !errors.Is(err, ErrMissingKernel) || !strings.HasSuffix(err.Error(), "some.cu defines no kernel three, four (of the 4 the emulator registers)") {
		t.Fatalf("error %v", err)
	}
	// The kernels a macro defines count: these two build.
	if _, err := Build(dir, src, []string{"one", "two"}); err != nil {
		t.Fatal(err)
	}
}

func TestNoDevice(t *testing.T) {
	cause := errors.New("cuda: no NVIDIA driver (libcuda.so.1 not found)")
	tests := []struct {
		require  string
		wantMsg  string
		wantFail bool
	}{
		{"", "no CUDA device: cuda: no NVIDIA driver (libcuda.so.1 not found)", false},
		{"0", "no CUDA device: cuda: no NVIDIA driver (libcuda.so.1 not found)", false},
		{"1", "no CUDA device (SAJI_CUDA_REQUIRE=1): cuda: no NVIDIA driver (libcuda.so.1 not found)", true},
	}
	for _, tt := range tests {
		t.Setenv(RequireEnv, tt.require)
		if msg, fail := noDevice(cause); msg != tt.wantMsg || fail != tt.wantFail {
			t.Errorf("%s=%q: %q, %v; want %q, %v", RequireEnv, tt.require, msg, fail, tt.wantMsg, tt.wantFail)
		}
	}
}

func TestTargetEmulated(t *testing.T) {
	if !(Target{Name: Emulator}).Emulated() || (Target{Name: GPU}).Emulated() {
		t.Error("Emulated is wrong")
	}
}
