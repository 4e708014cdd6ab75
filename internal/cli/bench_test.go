package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/synth"
	"saji/kernels/quant"
)

// writeMiniVocab writes synth's small SentencePiece-style vocabulary to
// dir and returns its path. Without model, it lacks tokenizer.ggml.model
// and no tokenizer accepts it.
func writeMiniVocab(t *testing.T, dir string, model bool) string {
	t.Helper()
	name := ""
	if model {
		name = "llama"
	}
	path := filepath.Join(dir, "vocab.gguf")
	if err := synth.WriteMiniVocab(context.Background(), path, name); err != nil {
		t.Fatal(err)
	}
	return path
}

// tinyModel writes a tiny synthetic Q8_0 model and returns its path.
func tinyModel(t *testing.T) string {
	t.Helper()
	return tinyModelVocab(t, true)
}

// tinyModelVocab is tinyModel, with a vocabulary that a tokenizer accepts
// or not.
func tinyModelVocab(t *testing.T, tokenizer bool) string {
	t.Helper()
	dir := t.TempDir()
	vp := writeMiniVocab(t, dir, tokenizer)
	vocab, err := gguf.Open(vp)
	if err != nil {
		t.Fatal(err)
	}
	defer vocab.Close()
	shape, err := synth.LookupShape("tiny")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tiny-q8_0.gguf")
	opts := synth.Options{Shape: shape, FileType: gguf.FileTypeMostlyQ8_0, Vocab: vocab, Seed: 3, Threads: 2}
	if err := synth.Write(context.Background(), path, opts); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBenchTable(t *testing.T) {
	path := tinyModel(t)
	out, errs, status := run(t, Options{}, "bench", "-m", path, "-p", "8", "-n", "4", "-r", "2", "-t", "1,2", "--progress")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 6 {
		t.Fatalf("output:\n%s", out)
	}
	head := "| model                          |       size |     params | backend    | threads |            test |                  t/s |"
	if lines[0] != head {
		t.Errorf("header\n%s\nwant\n%s", lines[0], head)
	}
	if !strings.HasPrefix(lines[1], "| ------------------------------ | ---------: |") {
		t.Errorf("rule %q", lines[1])
	}
	wantTests := []struct{ threads, test string }{{"1", "pp8"}, {"1", "tg4"}, {"2", "pp8"}, {"2", "tg4"}}
	for i, w := range wantTests {
		cells := strings.Split(strings.Trim(lines[2+i], "|"), "|")
		if len(cells) != 7 {
			t.Fatalf("row %q", lines[2+i])
		}
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if cells[0] != "llama ?B Q8_0" || !strings.HasSuffix(cells[1], " MiB") || !strings.HasSuffix(cells[2], " M") ||
			!strings.HasPrefix(cells[3], "CPU") || cells[4] != w.threads || cells[5] != w.test {
			t.Errorf("row %d: %q", i, cells)
		}
		var mean, std float64
		if _, err := fmt.Sscanf(cells[6], "%f ± %f", &mean, &std); err != nil || mean <= 0 || std < 0 {
			t.Errorf("row %d: t/s %q", i, cells[6])
		}
	}
	if !strings.Contains(out, "build: saji") {
		t.Error("no build line")
	}
	if !strings.Contains(errs, "warm-up") || !strings.Contains(errs, "run 2/2") {
		t.Errorf("--progress said %q", errs)
	}
}

func TestBenchJSON(t *testing.T) {
	path := tinyModel(t)
	for _, extra := range [][]string{nil, {"--no-mmap", "--mlock"}, {"--ctk", "f32", "--no-warmup"}} {
		args := append([]string{"bench", "-m", path, "-p", "6,3", "-n", "0", "-r", "3", "-t", "2", "--json"}, extra...)
		out, errs, status := run(t, Options{}, args...)
		if status != 0 {
			t.Fatalf("%v: status %d: %s", extra, status, errs)
		}
		var recs []map[string]any
		if err := json.Unmarshal([]byte(out), &recs); err != nil {
			t.Fatalf("%v: %v in\n%s", extra, err, out)
		}
		if len(recs) != 2 {
			t.Fatalf("%v: %d records", extra, len(recs))
		}
		for i, r := range recs {
			for _, k := range []string{"model_filename", "model_type", "model_size", "model_n_params", "n_threads",
				"n_prompt", "n_gen", "avg_ts", "stddev_ts", "avg_ns", "stddev_ns", "samples_ts", "samples_ns", "type_k", "backends"} {
				if _, ok := r[k]; !ok {
					t.Errorf("%v: record %d lacks %s", extra, i, k)
				}
			}
			if r["model_filename"] != path || r["n_prompt"] != float64([]int{6, 3}[i]) || r["n_gen"] != 0.0 || r["n_threads"] != 2.0 {
				t.Errorf("%v: record %d: %v", extra, i, r)
			}
			if ts, _ := r["samples_ts"].([]any); len(ts) != 3 || r["avg_ts"].(float64) <= 0 {
				t.Errorf("%v: record %d: samples %v avg %v", extra, i, r["samples_ts"], r["avg_ts"])
			}
			noMmap := slices.Contains(extra, "--no-mmap")
			if r["use_mmap"] != !noMmap {
				t.Errorf("%v: use_mmap %v", extra, r["use_mmap"])
			}
			wantKV := "f16"
			if slices.Contains(extra, "f32") {
				wantKV = "f32"
			}
			if r["type_k"] != wantKV || r["type_v"] != wantKV {
				t.Errorf("%v: cache types %v %v", extra, r["type_k"], r["type_v"])
			}
		}
	}
}

// TestBenchGPULayers runs the tests at two GPU layer counts: -ngl 0 on
// the CPU, -ngl 2 on the GPU or, without one, on the CPU again.
func TestBenchGPULayers(t *testing.T) {
	path := tinyModel(t)
	out, errs, status := run(t, Options{}, "bench", "-m", path, "-p", "4", "-n", "0", "-r", "1", "-t", "1", "-ngl", "0,2", "--json")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	var recs []benchRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	if recs[0].NGPULayers != 0 || recs[0].Backends != "CPU" {
		t.Errorf("-ngl 0: %d layers on %s", recs[0].NGPULayers, recs[0].Backends)
	}
	switch r := recs[1]; {
	case r.NGPULayers == 2 && r.Backends != "CPU" && r.GPUInfo != "":
	case r.NGPULayers == 0 && r.Backends == "CPU" && strings.Contains(errs, "saji bench: -ngl 2: CPU ("):
	default:
		t.Errorf("-ngl 2: %d layers on %s (%s); stderr %q", r.NGPULayers, r.Backends, r.GPUInfo, errs)
	}
	_, errs, status = run(t, Options{}, "bench", "-m", path, "-ngl", "-2")
	if status == 0 || !strings.Contains(errs, "--n-gpu-layers") {
		t.Errorf("-ngl -2: status %d, stderr %q", status, errs)
	}
}

// TestBenchTableNGL checks the table's ngl column and GPU backend.
func TestBenchTableNGL(t *testing.T) {
	var b strings.Builder
	r := &markdownReporter{w: &b, showNGL: true}
	r.header()
	bm := &benchModel{desc: "llama 8B Q4_K - Medium", gpu: "CUDA", device: "cuda:0", ngl: 33, kernels: "avx2"}
	r.test(bm, &benchTest{threads: 4, nPrompt: 512, samples: []time.Duration{time.Second}})
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[0], "| backend    | ngl | threads |") || !strings.Contains(lines[1], "| ---------- | --: | ------: |") {
		t.Errorf("header:\n%s", b.String())
	}
	if !strings.Contains(lines[2], "| CUDA       |  33 |       4 |") {
		t.Errorf("row %q", lines[2])
	}
}

// TestBenchWithoutTokenizer runs a model whose vocabulary no tokenizer
// accepts: the tests start from random tokens.
func TestBenchWithoutTokenizer(t *testing.T) {
	out, errs, status := run(t, Options{}, "bench", "-m", tinyModelVocab(t, false), "-p", "4", "-n", "2", "-r", "1")
	if status != 0 || !strings.Contains(out, "pp4") || !strings.Contains(out, "tg2") {
		t.Errorf("status %d, stdout %q, stderr %q", status, out, errs)
	}
}

func TestBenchErrors(t *testing.T) {
	path := tinyModel(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bench"}, "a model is required"},
		{[]string{"bench", "-m", path, "-t", "0"}, "--threads"},
		{[]string{"bench", "-m", path, "-p", "x"}, "--n-prompt"},
		{[]string{"bench", "-m", path, "-n", "-1"}, "--n-gen"},
		{[]string{"bench", "-m", path, "-r", "0"}, "--repetitions"},
		{[]string{"bench", "-m", path, "--ctk", "q4_0"}, "--ctk"},
		{[]string{"bench", "-m", filepath.Join(t.TempDir(), "none.gguf")}, "bench: gguf:"},
	} {
		_, errs, status := run(t, Options{}, tt.args...)
		if status == 0 || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: status %d, stderr %q, want %q", tt.args, status, errs, tt.want)
		}
	}
}

// TestNoMmapSameLogits checks that a model read into memory computes
// exactly what the mapped one does.
func TestNoMmapSameLogits(t *testing.T) {
	path := tinyModel(t)
	logits := func(opts gguf.OpenOptions) []float32 {
		f, err := gguf.OpenWith(context.Background(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		m, err := model.Load(context.Background(), f, model.Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		cache, err := m.NewCache(8, quant.TypeF16)
		if err != nil {
			t.Fatal(err)
		}
		out, err := m.Forward(context.Background(), []int32{1, 100, 200, 265}, positions(0, 4), cache, true)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Clone(out)
	}
	a, b := logits(gguf.OpenOptions{}), logits(gguf.OpenOptions{NoMmap: true})
	if len(a) != 4*269 || !slices.Equal(a, b) {
		t.Errorf("no-mmap logits differ (%d and %d values)", len(a), len(b))
	}
}

func TestBenchHelpers(t *testing.T) {
	for _, tt := range []struct {
		x         []float64
		mean, std float64
	}{
		{nil, 0, 0},
		{[]float64{5}, 5, 0},
		{[]float64{1, 3}, 2, math.Sqrt2},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7)},
	} {
		m, s := meanStd(tt.x)
		if math.Abs(m-tt.mean) > 1e-12 || math.Abs(s-tt.std) > 1e-12 {
			t.Errorf("meanStd(%v) = %g, %g, want %g, %g", tt.x, m, s, tt.mean, tt.std)
		}
	}
	for _, tt := range []struct {
		params int64
		want   string
	}{{1_235_814_400, "1B"}, {8_030_261_248, "8B"}, {494_032_768, "0.5B"}, {68_000_000, "?B"}} {
		if got := sizeLabel(tt.params); got != tt.want {
			t.Errorf("sizeLabel(%d) = %q, want %q", tt.params, got, tt.want)
		}
	}
	for _, tt := range []struct {
		n          int64
		size, pars string
	}{{46823424, "44.65 MiB", "46.82 M"}, {771_000_000 * 2, "1.44 GiB", "1.54 B"}} {
		if benchSize(tt.n) != tt.size || benchParams(tt.n) != tt.pars {
			t.Errorf("%d: %q %q, want %q %q", tt.n, benchSize(tt.n), benchParams(tt.n), tt.size, tt.pars)
		}
	}
	for _, tt := range []struct {
		s    string
		want []int
	}{{"4", []int{4}}, {"1, 2,8", []int{1, 2, 8}}, {"", nil}, {"1,,2", nil}, {"-1", nil}} {
		got, err := intList("x", tt.s, 0)
		if !slices.Equal(got, tt.want) || (err == nil) != (tt.want != nil) {
			t.Errorf("intList(%q) = %v, %v", tt.s, got, err)
		}
	}
}

// TestBenchDepth runs the tests at depths 0 and 20: the table names them
// as llama-bench does ("pp4 @ d20"), and the records carry n_depth.
func TestBenchDepth(t *testing.T) {
	path := tinyModel(t)
	out, errs, status := run(t, Options{}, "bench", "-m", path, "-p", "4", "-n", "3", "-d", "0,20", "-r", "2", "-t", "1", "--progress")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	var tests []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[2:] {
		if cells := strings.Split(strings.Trim(line, "|"), "|"); len(cells) == 7 {
			tests = append(tests, strings.TrimSpace(cells[5]))
		}
	}
	if want := []string{"pp4", "tg3", "pp4 @ d20", "tg3 @ d20"}; !slices.Equal(tests, want) {
		t.Errorf("tests %q, want %q", tests, want)
	}
	if strings.Count(errs, ": depth") != 2 {
		t.Errorf("--progress said %q", errs)
	}
	out, errs, status = run(t, Options{}, "bench", "-m", path, "-p", "0", "-n", "2", "-d", "30", "-r", "1", "-t", "1", "--json")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	var recs []benchRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].NDepth != 30 || recs[0].NGen != 2 || recs[0].AvgTs <= 0 {
		t.Errorf("records %+v", recs)
	}
	if _, errs, status := run(t, Options{}, "bench", "-m", path, "-d", "-5"); status == 0 || !strings.Contains(errs, "n-depth") {
		t.Errorf("-d -5: status %d, stderr %q", status, errs)
	}
}
