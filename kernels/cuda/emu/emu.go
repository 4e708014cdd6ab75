// Package emu builds the CUDA emulator for tests: a fake CUDA driver
// library (src/driver.cpp, a C++17 shared library) that implements the driver
// API functions kernels/cuda binds and runs the kernels of kernels.cu on
// the CPU, so that the purego binding, the kernels and whole models run
// "on CUDA" on machines without an NVIDIA GPU. Tests pass its path as
// cuda.Options.Library.
//
// The library is built with g++ from the source tree, once per test binary,
// and kept in the user's cache directory under a hash of everything that
// goes into it, so later test runs reuse it.
package emu

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"saji/kernels/gpu"
)

// Compiler is the C++ compiler the emulator is built with.
const Compiler = "g++"

// Flags returns the compiler flags of the emulator library (before the
// include directory of the generated registry).
//
// -ffp-contract=off: the emulator rounds every product and every sum on
// its own, whatever the host (g++ fuses a·b+c into one FMA by default
// where the target has one: arm64, or x86-64 with -mfma), so a kernel
// computes the same bits on every machine that runs the tests; only
// k_fma (prelude.h) fuses. The GPU differs in one direction: gen.sh runs
// clang-14 without the flag, and clang compiles CUDA with
// -ffp-contract=fast by default, so the PTX takes many a·b+c as one
// fma.rn.f32 (about 8000 of them in kernels.ptx; ptxas may fuse its
// unrounded mul.f32/add.f32 pairs as well), each rounded once where the
// emulator rounds twice; the emulator never fuses where the PTX does
// not. So the emulator and the GPU agree to the last bit only where
// kernels.cu fuses explicitly (k_fma) or there is nothing to fuse, and
// the tests hold both to the CPU within tolerances that cover that: an
// emulator built with -ffp-contract=fast -mfma instead, the nearest the
// host comes to the PTX, passes them with differences of the same size
// (kernels/cuda's and engine/model's tests).
func Flags() []string {
	return []string{"-std=c++17", "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-DSAJI_CUDA_EMU"}
}

// libName is the built library's file name.
const libName = "libcuda-emu.so"

// library builds the emulator of kernels.cu once per process.
var library = sync.OnceValues(func() (string, error) {
	src, err := SourceDir()
	if err != nil {
		return "", err
	}
	names := make([]string, len(gpu.Kernels))
	for i, k := range gpu.Kernels {
		names[i] = k.Name
	}
	return Cached(filepath.Join(src, "..", "kernels.cu"), names)
})

// Library returns the path of the emulator of kernels.cu (every kernel of
// gpu.Kernels), building it on first use. Without a C++ compiler, or on
// an OS other than Linux, it skips t, except under CI (CI=true), where
// it fails t: CI must run the GPU code path.
func Library(t testing.TB) string {
	t.Helper()
	Require(t)
	path, err := library()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Require skips t where the emulator cannot be built (see Available),
// except under CI (CI=true) on Linux with a compiler for the test's own
// architecture missing, where it fails t: CI must run the GPU code path.
// Tests of another architecture (arm64 under qemu, where g++ builds for
// the host) are skipped.
func Require(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" && runtime.GOOS == "linux" && !errors.Is(err, ErrOtherArch) {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// ErrOtherArch is matched by Available's error where the compiler builds
// for another architecture than the running program's.
var ErrOtherArch = errors.New("emu: the C++ compiler builds for another architecture")

// gccArch maps GOARCH to the architecture field of a GCC target triple.
var gccArch = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "riscv64": "riscv64",
	"ppc64le": "powerpc64le", "s390x": "s390x", "loong64": "loongarch64"}

// available is Available, asked of the compiler once.
var available = sync.OnceValue(func() error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("emu: the CUDA emulator is built on Linux only (this is %s)", runtime.GOOS)
	}
	if _, err := exec.LookPath(Compiler); err != nil {
		return fmt.Errorf("emu: the CUDA emulator needs %s (apt-get install g++): %w", Compiler, err)
	}
	out, err := exec.Command(Compiler, "-dumpmachine").Output()
	if err != nil {
		return fmt.Errorf("emu: %s -dumpmachine: %w", Compiler, err)
	}
	target := strings.TrimSpace(string(out))
	if arch, _, _ := strings.Cut(target, "-"); arch != gccArch[runtime.GOARCH] {
		return fmt.Errorf("%w: %s targets %s, this test is %s", ErrOtherArch, Compiler, target, runtime.GOARCH)
	}
	return nil
})

// Available reports why the emulator cannot be built and loaded here
// (not Linux, no g++, or a g++ for another architecture), or nil.
func Available() error { return available() }

// SourceDir returns the folder of emu.h and src/driver.cpp: this file's
// in the source tree, or kernels/cuda/emu under the module root above the
// working directory (for binaries built with -trimpath).
func SourceDir() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok {
		dir := filepath.Dir(file)
		if _, err := os.Stat(filepath.Join(dir, "src", "driver.cpp")); err == nil {
			return dir, nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("emu: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			dir := filepath.Join(d, "kernels", "cuda", "emu")
			if _, err := os.Stat(filepath.Join(dir, "src", "driver.cpp")); err != nil {
				return "", fmt.Errorf("emu: the emulator's source is not in %s: %w", dir, err)
			}
			return dir, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("emu: the emulator's source (kernels/cuda/emu) is not above %s", wd)
		}
	}
}

// Registry is the registry.inc of names: one REG(name) line per kernel.
func Registry(names []string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "REG(%s)\n", n)
	}
	return b.String()
}

// Build builds the emulator of the kernels names defined in the source
// file kernels into dir and returns the library's path. The source must
// include emu.h (kernels.cu does through prelude.h with SAJI_CUDA_EMU).
func Build(dir, kernels string, names []string) (string, error) {
	src, err := SourceDir()
	if err != nil {
		return "", err
	}
	kernels, err = filepath.Abs(kernels)
	if err != nil {
		return "", fmt.Errorf("emu: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "registry.inc"), []byte(Registry(names)), 0o644); err != nil {
		return "", fmt.Errorf("emu: %w", err)
	}
	if err := checkKernels(kernels, names); err != nil {
		return "", err
	}
	lib := filepath.Join(dir, libName)
	args := Flags()
	args = append(args, "-I", dir, fmt.Sprintf("-DSAJI_EMU_KERNELS=%q", kernels),
		"-o", lib, filepath.Join(src, "src", "driver.cpp"))
	cmd := exec.Command(Compiler, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("emu: building the CUDA emulator (%s %s): %w\n%s", Compiler, strings.Join(args, " "), err, out)
	}
	return lib, nil
}

// ErrMissingKernel is matched by Build's error where the kernel source
// defines no kernel of a name the registry lists (kernels.cu behind
// gpu.Kernels).
var ErrMissingKernel = errors.New("emu: the kernel source lacks kernels")

// kernelDef matches a kernel's definition in preprocessed source (KERNEL
// expands to extern "C" void).
var kernelDef = regexp.MustCompile(`extern\s+"C"\s+void\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// checkKernels returns an error wrapping ErrMissingKernel that names the
// kernels of names the source file kernels does not define, so that a
// kernel source behind the spec says so instead of failing to compile
// with a page of errors about the registry. Where the source does not
// preprocess, it returns nil: the compiler's message says why.
func checkKernels(kernels string, names []string) error {
	args := append(Flags(), "-E", "-x", "c++", kernels)
	out, err := exec.Command(Compiler, args...).Output()
	if err != nil {
		return nil
	}
	defined := map[string]bool{}
	for _, m := range kernelDef.FindAllSubmatch(out, -1) {
		defined[string(m[1])] = true
	}
	var missing []string
	for _, n := range names {
		if !defined[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s defines no kernel %s (of the %d the emulator registers)",
			ErrMissingKernel, kernels, strings.Join(missing, ", "), len(names))
	}
	return nil
}

// cacheAge is how long an unused cached build is kept.
const cacheAge = 7 * 24 * time.Hour

// Cached is Build into a folder of the user's cache named by a hash of
// the sources (driver.cpp, emu.h, the kernel source and the headers beside
// it), the kernel names, the flags and the compiler's version: a build
// already there is reused. Without a cache folder it builds into a new
// temporary folder.
func Cached(kernels string, names []string) (string, error) {
	key, err := buildKey(kernels, names)
	if err != nil {
		return "", err
	}
	root, err := os.UserCacheDir()
	if err != nil {
		return buildTemp(kernels, names)
	}
	root = filepath.Join(root, "saji", "cuda-emu")
	final := filepath.Join(root, key)
	lib := filepath.Join(final, libName)
	if _, err := os.Stat(lib); err == nil {
		now := time.Now()
		_ = os.Chtimes(final, now, now) // still in use
		return lib, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return buildTemp(kernels, names)
	}
	prune(root)
	tmp, err := os.MkdirTemp(root, "build-")
	if err != nil {
		return buildTemp(kernels, names)
	}
	if _, err := Build(tmp, kernels, names); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another test binary finished the same build first: use its.
		os.RemoveAll(tmp)
		if _, serr := os.Stat(lib); serr != nil {
			return "", fmt.Errorf("emu: %w", errors.Join(err, serr))
		}
	}
	return lib, nil
}

// buildTemp builds into a new temporary folder (left for the OS to clean).
func buildTemp(kernels string, names []string) (string, error) {
	dir, err := os.MkdirTemp("", "saji-cuda-emu-")
	if err != nil {
		return "", fmt.Errorf("emu: %w", err)
	}
	return Build(dir, kernels, names)
}

// prune removes cached builds unused for cacheAge, and builds abandoned
// by a test binary that died.
func prune(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < cacheAge {
			continue
		}
		os.RemoveAll(filepath.Join(root, e.Name()))
	}
}

// buildKey hashes everything a build depends on.
func buildKey(kernels string, names []string) (string, error) {
	src, err := SourceDir()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	files := []string{filepath.Join(src, "src", "driver.cpp"), filepath.Join(src, "emu.h"), kernels}
	// Headers beside the kernel source (prelude.h) go into the build too.
	if hs, err := filepath.Glob(filepath.Join(filepath.Dir(kernels), "*.h")); err == nil {
		files = append(files, hs...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("emu: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(data))
		h.Write(data)
	}
	fmt.Fprintf(h, "%s\n%s\n", Registry(names), strings.Join(Flags(), " "))
	version, err := exec.Command(Compiler, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("emu: %s --version: %w", Compiler, err)
	}
	h.Write(version)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
