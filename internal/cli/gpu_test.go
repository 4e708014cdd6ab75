//go:build linux

package cli

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"saji/internal/refdata"
	"saji/kernels/cuda/emu"
)

// The GPU registry is opened once per process, so the commands run on the
// CUDA emulator in a child process: the test binary again, running
// TestGPUChild with the command line in SAJI_CLI_ARGS and the emulator in
// SAJI_CUDA_LIBRARY.
const childArgs = "SAJI_CLI_ARGS"

// TestGPUChild runs the command line of SAJI_CLI_ARGS (a JSON array), with
// its standard output and error in the files SAJI_CLI_OUT and SAJI_CLI_ERR,
// and fails with its status. Without SAJI_CLI_ARGS it does nothing: it is
// the child of TestGPULayersEmulated and of TestPullTwoProcesses.
func TestGPUChild(t *testing.T) {
	raw := os.Getenv(childArgs)
	if raw == "" {
		t.Skip("the child of TestGPULayersEmulated and TestPullTwoProcesses")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	out, errs, status := run(t, Options{}, args...)
	if err := os.WriteFile(os.Getenv("SAJI_CLI_OUT"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv("SAJI_CLI_ERR"), []byte(errs), 0o644); err != nil {
		t.Fatal(err)
	}
	if status != 0 {
		t.Fatalf("status %d", status)
	}
}

// onEmulatedGPU runs saji args in a child process whose GPU is the CUDA
// emulator lib, and returns its standard output and error.
func onEmulatedGPU(t *testing.T, lib string, args ...string) (stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestGPUChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childArgs+"="+string(a), "SAJI_CUDA_LIBRARY="+lib,
		"SAJI_CLI_OUT="+filepath.Join(dir, "out"), "SAJI_CLI_ERR="+filepath.Join(dir, "err"))
	log, err := cmd.CombinedOutput()
	out, _ := os.ReadFile(filepath.Join(dir, "out"))
	errs, _ := os.ReadFile(filepath.Join(dir, "err"))
	if err != nil {
		t.Fatalf("saji %s on the emulated GPU: %v\n%s\nstderr: %s", strings.Join(args, " "), err, log, errs)
	}
	return string(out), string(errs)
}

// TestGPULayersEmulated runs the commands that take --gpu-layers (-ngl)
// on the CUDA emulator: each says where the model runs, and computes what
// it computes on the CPU, to the GPU's precision.
func TestGPULayersEmulated(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector: the emulator's arithmetic is single-threaded (40 s under it), and the unit step runs it")
	}
	lib := emu.Library(t)
	path := tinyModel(t)
	split := regexp.MustCompile(`(?m)^saji: GPU: 2/4 layers on cuda:0, the rest on the CPU$`)
	all := regexp.MustCompile(`(?m)^saji: GPU: 4/4 layers on cuda:0$`)

	t.Run("eval", func(t *testing.T) {
		args := []string{"eval", "-m", path, "-p", "Once upon a time", "--top", "3", "--greedy", "3", "-t", "2"}
		cpuOut, errs, status := run(t, Options{}, append(args, "-ngl", "0")...)
		if status != 0 {
			t.Fatal(errs)
		}
		gpuOut, errs := onEmulatedGPU(t, lib, append(args, "-ngl", "2")...)
		if !split.MatchString(errs) {
			t.Errorf("-ngl 2 does not say where the model runs: %q", errs)
		}
		var cpu, gpu struct {
			Tokens []int32   `json:"tokens"`
			Last   []float64 `json:"last_logits"`
		}
		if err := json.Unmarshal([]byte(cpuOut), &cpu); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(gpuOut), &gpu); err != nil {
			t.Fatalf("%v: %q", err, gpuOut)
		}
		if !slices.Equal(cpu.Tokens, gpu.Tokens) || len(cpu.Last) != len(gpu.Last) || len(cpu.Last) == 0 {
			t.Fatalf("tokens %v and %d logits on the GPU, %v and %d on the CPU", gpu.Tokens, len(gpu.Last), cpu.Tokens, len(cpu.Last))
		}
		scale := 0.0
		for _, v := range cpu.Last {
			scale = max(scale, math.Abs(v))
		}
		for i := range cpu.Last {
			// The GPU multiplies F32 activations where the CPU rounds
			// them to 8 bits for Q8_0 products.
			if d := math.Abs(gpu.Last[i] - cpu.Last[i]); d > 0.05*scale {
				t.Fatalf("logit %d: %v on the GPU, %v on the CPU", i, gpu.Last[i], cpu.Last[i])
			}
		}
	})

	t.Run("run", func(t *testing.T) {
		out, errs := onEmulatedGPU(t, lib, "run", "-m", path, "-n", "4", "--temp", "0", "-c", "64", "-t", "2", "-ngl", "99", "Once upon a time")
		if !all.MatchString(errs) || out == "" {
			t.Errorf("-ngl 99: stdout %q, stderr %q", out, errs)
		}
	})

	t.Run("loadtest", func(t *testing.T) {
		out, errs := onEmulatedGPU(t, lib, "loadtest", "--model", path, "--requests", "3", "--concurrency", "2",
			"--prompt-len", "8", "--output-len", "4", "--threads", "2", "--json", "-ngl", "2")
		var s struct {
			Completed int `json:"completed"`
			Failed    int `json:"failed"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil || s.Completed != 3 || s.Failed != 0 {
			t.Errorf("%+v (%v): %s", s, err, out)
		}
		if !split.MatchString(errs) {
			t.Errorf("loadtest -ngl 2 does not say where the model runs: %q", errs)
		}
	})

	// stories260K (F32) on the GPU gives llama.cpp's figure, as on the CPU.
	t.Run("perplexity", func(t *testing.T) {
		dir := refdata.Dir(t)
		out, errs := onEmulatedGPU(t, lib, "perplexity", "-m", filepath.Join(dir, "models", "stories260K.gguf"),
			"-f", filepath.Join(dir, "ppl", "story.txt"), "-c", "128", "-t", "2", "-ngl", "99")
		if !regexp.MustCompile(`(?m)^saji: GPU: 5/5 layers on cuda:0$`).MatchString(errs) {
			t.Errorf("perplexity -ngl 99 does not say where the model runs: %q", errs)
		}
		m := regexp.MustCompile(`Final estimate: PPL = ([0-9.]+) \+/- ([0-9.]+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no final estimate in %q", out)
		}
		ppl, _ := strconv.ParseFloat(m[1], 64)
		if rel := math.Abs(ppl-3.9416) / 3.9416; rel > 0.001 {
			t.Errorf("PPL = %.4f on the GPU, want llama.cpp's 3.9416 within 0.1%%", ppl)
		}
		t.Logf("PPL on the emulated GPU: %s +/- %s", m[1], m[2])
	})
}
