package cli

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"saji/engine/gguf"
	"saji/engine/quantize"
	"saji/engine/synth"
	"saji/kernels/quant"
)

// summaryLine is the line saji quantize prints at the end.
var summaryLine = regexp.MustCompile(`^in\.gguf \([0-9.]+ (?:kB|MB)\) -> out-(\w+)\.gguf \([0-9.]+ (kB|MB)\), (\w+): (\d+ [a-z0-9_K]+)(, \d+ [a-z0-9_K]+)* in [0-9.]+ s\n$`)

// TestQuantizeCmd quantizes a synthetic F32 model to every type, checks
// the summary, and loads each output with the engine and generates a few
// tokens from it.
func TestQuantizeCmd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.gguf")
	if err := synth.WriteTiny(ctx, in, "f32", 11); err != nil {
		t.Fatal(err)
	}
	for i, ft := range quantize.FileTypes() {
		t.Run(ft.String(), func(t *testing.T) {
			if raceEnabled && i > 0 {
				t.Skip("the race detector: one type shows the command's concurrency; each type's arithmetic is single-threaded (65 s under it)")
			}
			out := filepath.Join(dir, "out-"+ft.String()+".gguf")
			stdout, stderr, err := runCmd(t, "", "quantize", "-t", "2", in, out, strings.ToLower(ft.String()))
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			m := summaryLine.FindStringSubmatch(stdout)
			if m == nil || m[1] != ft.String() || m[3] != ft.String() {
				t.Fatalf("summary %q does not match %v", stdout, summaryLine)
			}
			if stderr != "" { // not a terminal: no progress bar
				t.Errorf("stderr %q, want nothing", stderr)
			}
			generate(t, out)
		})
	}
}

// generate loads path with the engine and runs a short greedy
// continuation, checking that the logits are finite.
func generate(t *testing.T, path string) {
	t.Helper()
	lm, err := openModel(context.Background(), path, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer lm.Close()
	tokens := lm.tok.Encode("Once upon a time", true, false)
	cache, err := lm.model.NewCache(64, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	logits, err := lm.model.Forward(context.Background(), tokens, positions(0, len(tokens)), cache, false)
	if err != nil {
		t.Fatal(err)
	}
	n := len(tokens)
	for step := range 4 {
		best := 0
		for i, v := range logits {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("step %d: logit %d is %v", step, i, v)
			}
			if v > logits[best] {
				best = i
			}
		}
		if logits, err = lm.model.Forward(context.Background(), []int32{int32(best)}, positions(n, 1), cache, false); err != nil {
			t.Fatal(err)
		}
		n++
	}
}

// TestQuantizeCmdImatrix quantizes a synthetic model to Q2_K_S, which
// needs an importance matrix, with one in llama-imatrix's .dat format.
func TestQuantizeCmdImatrix(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.gguf")
	if err := synth.WriteTiny(ctx, in, "f32", 3); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	var dat []byte
	put := func(v uint32) { dat = binary.LittleEndian.AppendUint32(dat, v) }
	var mats []gguf.TensorInfo
	for _, ti := range f.Tensors() {
		if len(ti.Shape) >= 2 {
			mats = append(mats, ti)
		}
	}
	f.Close()
	put(uint32(len(mats)))
	for _, ti := range mats {
		put(uint32(len(ti.Name)))
		dat = append(dat, ti.Name...)
		put(1) // calls
		put(uint32(ti.Shape[0]))
		for i := range ti.Shape[0] {
			put(math.Float32bits(float32(1 + i%5)))
		}
	}
	im := filepath.Join(dir, "imatrix.dat")
	if err := os.WriteFile(im, dat, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out-Q2_K_S.gguf")
	stdout, stderr, err := runCmd(t, "", "quantize", "--imatrix", im, in, out, "Q2_K_S")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if m := summaryLine.FindStringSubmatch(stdout); m == nil || m[3] != "Q2_K_S" {
		t.Fatalf("summary %q does not match %v", stdout, summaryLine)
	}
	generate(t, out)
}

// TestQuantizeCmdErrors checks bad arguments and a quantized input.
func TestQuantizeCmdErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f32 := filepath.Join(dir, "f32.gguf")
	if err := synth.WriteTiny(ctx, f32, "f32", 1); err != nil {
		t.Fatal(err)
	}
	q8 := filepath.Join(dir, "q8.gguf")
	if err := synth.WriteTiny(ctx, q8, "q8_0", 1); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.gguf")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no arguments", nil, "want IN OUT TYPE, got 0"},
		{"two arguments", []string{f32, out}, "want IN OUT TYPE, got 2"},
		{"unknown type", []string{f32, out, "q4_k_x"}, `unsupported target type "q4_k_x" (one of F32, F16`},
		{"imatrix type", []string{f32, out, "IQ2_XS"}, "target type IQ2_XS needs an importance matrix"},
		{"missing input", []string{filepath.Join(dir, "none.gguf"), out, "q8_0"}, "no such file"},
		{"Q2_K_S without imatrix", []string{f32, out, "q2_k_s"}, "Q2_K_S needs an importance matrix (llama-imatrix's output, --imatrix FILE)"},
		{"missing imatrix", []string{"--imatrix", filepath.Join(dir, "none.dat"), f32, out, "q4_k_m"}, "imatrix: open"},
		{"quantized input", []string{q8, out, "q4_k_m"}, "already quantized (tensor \"token_embd.weight\" is Q8_0): start from an F32, F16 or BF16 model, or give --allow-requantize"},
		{"negative threads", []string{"-t", "-1", f32, out, "q8_0"}, "--threads"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCmd(t, "", append([]string{"quantize"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("an output file was written")
			}
		})
	}

	// --allow-requantize accepts the Q8_0 input.
	stdout, _, err := runCmd(t, "", "quantize", "--allow-requantize", q8, out, "q4_0")
	if err != nil || !strings.Contains(stdout, "Q4_0:") {
		t.Fatalf("--allow-requantize: %v, %q", err, stdout)
	}
	f, err := gguf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ft, _ := f.FileType(); ft != gguf.FileTypeMostlyQ4_0 {
		t.Errorf("file type %v, want Q4_0", ft)
	}
}

func TestTypeCounts(t *testing.T) {
	got := typeCounts(map[quant.Type]int{quant.TypeF32: 65, quant.TypeQ4_K: 113, quant.TypeQ6_K: 17, quant.TypeIQ4_NL: 17})
	if want := "113 q4_K, 65 f32, 17 q6_K, 17 iq4_nl"; got != want {
		t.Errorf("typeCounts = %q, want %q", got, want)
	}
}

func TestRenderBar(t *testing.T) {
	tests := []struct {
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{0, 100, 0, "[..............................]   0%"},
		{50 << 20, 100 << 20, 2 * time.Second, "[###############...............]  50%  26 MB/s  ETA 0:02"},
		{100 << 20, 100 << 20, 4 * time.Second, "[##############################] 100%  26 MB/s"},
		{1 << 20, 7201 << 20, time.Second, "[..............................]   0%  1.0 MB/s  ETA 2:00:00"},
		{5, 0, time.Second, "[##############################] 100%  5 B/s"},
	}
	for _, tc := range tests {
		if got := renderBar(tc.done, tc.total, tc.elapsed); got != tc.want {
			t.Errorf("renderBar(%d, %d, %v) = %q, want %q", tc.done, tc.total, tc.elapsed, got, tc.want)
		}
	}
}

func TestProgressBarThrottles(t *testing.T) {
	var sb strings.Builder
	b := &progressBar{w: &sb, start: time.Now()}
	for i := range int64(1000) {
		b.update(i, 1000)
	}
	b.finish(true)
	out := sb.String()
	// The first update draws; the rest come within barInterval unless the
	// machine is very slow, and finish draws 100%.
	if n := strings.Count(out, "\r"); n < 2 || n > 1001 {
		t.Errorf("%d redraws", n)
	}
	if !strings.HasSuffix(out, "100%\x1b[K\n") && !strings.Contains(out, "] 100%  ") {
		t.Errorf("the bar does not end at 100%%: %q", out[max(0, len(out)-80):])
	}
}
