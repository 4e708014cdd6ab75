// Command refgen makes the reference figures of the synthetic models in
// testdata/ref: for each model it lists, it writes the tiny synthetic
// model with Saji's seeded writer (engine/synth), runs llama.cpp's
// refdump on it (testdata/refdump: a small program against libllama at
// the reference commit, built as testdata/README.md says), and saves
// refdump's JSON with the recipe that rewrites the very same file (the
// synth object: shape, type, seed, vocabulary) and its sha256. Tests
// (engine/model's conformance test) rewrite the model from the recipe,
// check the sha256, and compare Saji's logits with llama.cpp's.
//
// Usage: go run ./internal/tools/refgen -refdump PATH [-data ../shared/testdata] [-o testdata/ref] [NAME ...]
//
// NAME is SHAPE-TYPE as in the list below (all of them by default).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"saji/engine/synth"
)

// qwenVocab and spmVocab are the shared testdata's vocabularies that the
// synthetic models take.
const (
	qwenVocab = "vocab/llama3-trunc1280-qwen2.vocab.gguf"
	bpeVocab  = "vocab/llama3-trunc1280-llama-bpe.vocab.gguf"
	spmVocab  = "vocab/tok512-spm.vocab.gguf"
)

// Recipes lists the models refgen makes figures for.
var Recipes = []synth.Recipe{
	// The Llama family's test shape, which the shared data covers with
	// other files: it checks the pipeline itself.
	{Shape: "tiny", Type: "q8_0", Seed: 1, Vocab: spmVocab},
	// Mixtures of experts (engine/synth/moe.go): the router, the expert
	// products and the shared expert, on float weights and on the
	// activation quantizations of Q8_0 and the K-quants.
	{Shape: "tiny-qwen3moe", Type: "f32", Seed: 1, Vocab: qwenVocab},
	{Shape: "tiny-qwen3moe", Type: "q8_0", Seed: 1, Vocab: qwenVocab},
	{Shape: "tiny-qwen3moe", Type: "q4_k_m", Seed: 1, Vocab: qwenVocab},
	{Shape: "tiny-qwen2moe", Type: "f32", Seed: 1, Vocab: qwenVocab},
	{Shape: "tiny-qwen2moe", Type: "q4_k_m", Seed: 1, Vocab: qwenVocab},
	{Shape: "tiny-mixtral", Type: "f16", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-mixtral", Type: "q4_k_m", Seed: 1, Vocab: spmVocab},
	// The dense architectures beyond the Llama family (engine/synth's
	// dense.go), in F32 and quantized.
	{Shape: "tiny-gemma2", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-gemma2", Type: "q8_0", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-mistral3", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-mistral3", Type: "q4_k_m", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-qwen25vl", Type: "f32", Seed: 1, Vocab: qwenVocab},
	{Shape: "tiny-qwen3vl", Type: "f32", Seed: 1, Vocab: qwenVocab},
	{Shape: "tiny-smollm3", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-smollm3", Type: "q6_k", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-granite", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-granite", Type: "q4_0", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-olmo2", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-olmo2", Type: "q4_k_m", Seed: 1, Vocab: spmVocab},
	// gpt-oss (engine/synth/gptoss.go): sinks, windows, YaRN, biases and
	// the softmax over the chosen experts; MXFP4 experts as released.
	{Shape: "tiny-gpt-oss", Type: "f32", Seed: 1, Vocab: bpeVocab},
	{Shape: "tiny-gpt-oss", Type: "q8_0", Seed: 1, Vocab: bpeVocab},
	{Shape: "tiny-gpt-oss", Type: "mxfp4_moe", Seed: 1, Vocab: bpeVocab},
	// LFM2 (engine/synth/lfm2.go): short convolutions over their state
	// beside attention with q/k norms, in F32 and in the K-quant mix.
	{Shape: "tiny-lfm2", Type: "f32", Seed: 1, Vocab: bpeVocab},
	{Shape: "tiny-lfm2", Type: "q4_k_m", Seed: 1, Vocab: bpeVocab},
	// Granite 4 hybrid (engine/synth/granitehybrid.go): Mamba-2 layers'
	// convolutions and selective scans over their states beside
	// attention without rotation, experts with a shared expert, Granite's
	// multipliers; in F32 and in the K-quant mix; the dense variant with
	// rotation and one group.
	{Shape: "tiny-granitehybrid", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-granitehybrid", Type: "q4_k_m", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-granitehybrid-dense", Type: "f32", Seed: 1, Vocab: spmVocab},
	// Nemotron-H (engine/synth/nemotronh.go): the Mamba-2 mixers beside
	// attention without rotation and squared-ReLU feed-forward layers, or
	// experts of squared ReLU (Nemotron 3).
	{Shape: "tiny-nemotronh", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-nemotronh", Type: "q8_0", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-nemotronhmoe", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-nemotronhmoe", Type: "q4_k_m", Seed: 1, Vocab: spmVocab},
	// Gemma 4 (engine/synth/gemma4.go): per-layer embeddings, shared KV,
	// sliding and global heads of different lengths, proportional rope.
	{Shape: "tiny-gemma4", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-gemma4", Type: "q8_0", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-gemma4moe", Type: "f32", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-gemma4moe", Type: "q4_k_m", Seed: 1, Vocab: spmVocab},
	// Qwen3.5 (engine/synth/qwen35.go): gated delta nets with their
	// convolutions and states beside gated attention, dense and with
	// experts and a gated shared expert (in Q4_K_M only: their delta nets'
	// F32 figures are the dense model's, and the unit run is kept short).
	{Shape: "tiny-qwen35", Type: "f32", Seed: 1, Vocab: qwenVocab},
	{Shape: "tiny-qwen35", Type: "q4_k_m", Seed: 1, Vocab: qwenVocab},
	{Shape: "tiny-qwen35moe", Type: "q4_k_m", Seed: 1, Vocab: qwenVocab},
	// Qwen3-Next (the same file): β and α in one projection, key heads
	// repeated to the value heads.
	{Shape: "tiny-qwen3next", Type: "q4_k_m", Seed: 1, Vocab: qwenVocab},
	// The weight types the shared data lacks, on a small Llama: the mixes
	// Saji writes as llama-quantize does (IQ3_S, IQ3_M, TQ1_0, TQ2_0), and
	// every matrix of one type for the types written only with an
	// importance matrix (random blocks: synth's rawBlocks) and MXFP4.
	{Shape: "tiny-llama", Type: "iq3_s", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "iq3_m", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "tq1_0", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "tq2_0", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-iq2_xxs", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-iq2_xs", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-iq2_s", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-iq3_xxs", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-iq3_s", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-iq1_s", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-iq1_m", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-tq1_0", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-tq2_0", Seed: 1, Vocab: spmVocab},
	{Shape: "tiny-llama", Type: "pure-mxfp4", Seed: 1, Vocab: spmVocab},
}

// Defaults names the recipes recorded a second time, as NAME.kvf16.json,
// with llama.cpp's defaults (F16 cache, flash attention): those whose
// flash-attention path differs (Gemma 2's softcap; Gemma 4's heads of two
// lengths and caches shared across layers), and the quantized Qwen3.5 and
// Gemma 4 mixture that `saji serve` is compared with llama-server on
// (internal/tools/servecmp), both servers running llama.cpp's defaults:
// the F16 cache's roundings under 8-bit activations are where a chunking
// difference shows.
var Defaults = map[string]bool{
	"tiny-gemma2-f32": true, "tiny-gemma4-f32": true,
	"tiny-qwen35-q4_k_m": true, "tiny-gemma4moe-q4_k_m": true,
}

// Tails names the Defaults recipes recorded a third time, as
// NAME.tailN.kvf16.json: with the prompt read in two batches, its last N
// tokens alone, as llama-server reads it where it keeps context
// checkpoints (models with recurrent layers or a sliding window).
// llama.cpp's own figures then differ from the one-batch ones by up to
// 1e-1 (ggml's kernels are not batch-invariant to the last bit, and the
// F16 cache's flash attention and the 8-bit activations amplify that);
// Saji, which follows ggml chunk for chunk, is checked against both.
var Tails = map[string]int{"tiny-qwen35-q4_k_m": 4, "tiny-gemma4moe-q4_k_m": 4}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("refgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	refdump := fs.String("refdump", "", "the refdump `binary`")
	data := fs.String("data", "../shared/testdata", "the shared testdata `folder` (vocabularies, prompts.json)")
	out := fs.String("o", "testdata/ref", "output `folder`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *refdump == "" {
		return errors.New("refgen: -refdump is required")
	}
	todo := Recipes
	if fs.NArg() > 0 {
		todo = nil
		for _, name := range fs.Args() {
			i := slices.IndexFunc(Recipes, func(r synth.Recipe) bool { return r.Name() == name })
			if i < 0 {
				return fmt.Errorf("refgen: no recipe called %q", name)
			}
			todo = append(todo, Recipes[i])
		}
	}
	tmp, err := os.MkdirTemp("", "refgen")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, r := range todo {
		fmt.Fprintln(stderr, "refgen:", r.Name())
		if err := make1(ctx, r, *refdump, *data, *out, tmp, false, 0); err != nil {
			return fmt.Errorf("refgen: %s: %w", r.Name(), err)
		}
		if Defaults[r.Name()] {
			if err := make1(ctx, r, *refdump, *data, *out, tmp, true, 0); err != nil {
				return fmt.Errorf("refgen: %s.kvf16: %w", r.Name(), err)
			}
		}
		if n := Tails[r.Name()]; n > 0 {
			if err := make1(ctx, r, *refdump, *data, *out, tmp, true, n); err != nil {
				return fmt.Errorf("refgen: %s.tail%d.kvf16: %w", r.Name(), n, err)
			}
		}
	}
	return nil
}

// make1 writes r's model, runs refdump on it and saves the figures: with
// an F32 cache and no flash attention, or with llama.cpp's defaults; with
// the prompt in one batch, or its last tail tokens alone.
func make1(ctx context.Context, r synth.Recipe, refdump, data, out, tmp string, defaults bool, tail int) error {
	kv, fa, suffix := "f32", "off", ""
	if defaults {
		kv, fa, suffix = "f16", "auto", ".kvf16"
	}
	if tail > 0 {
		suffix = fmt.Sprintf(".tail%d%s", tail, suffix)
	}
	model := filepath.Join(tmp, r.Name()+".gguf")
	sum, size, err := r.Write(ctx, filepath.Join(data, filepath.FromSlash(r.Vocab)), model)
	if err != nil {
		return err
	}
	raw := filepath.Join(tmp, r.Name()+".raw.json")
	cmd := exec.CommandContext(ctx, refdump, model, filepath.Join(data, "prompts.json"), raw, kv, fa, "1", strconv.Itoa(tail))
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("refdump: %w\n%s", err, lastLines(msg.String(), 20))
	}
	b, err := os.ReadFile(raw)
	if err != nil {
		return err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("refdump's output: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(doc["model"], &m); err != nil {
		return fmt.Errorf("refdump's model: %w", err)
	}
	m["path"], m["size"], m["sha256"], m["synth"] = "", size, sum, r
	if doc["model"], err = json.Marshal(m); err != nil {
		return err
	}
	// The figures keep refdump's order and %.9g floats; only model changes.
	var buf bytes.Buffer
	buf.WriteString("{\n")
	for i, k := range []string{"schema_version", "kind", "generator", "model", "config", "prompts"} {
		if i > 0 {
			buf.WriteString(",\n")
		}
		fmt.Fprintf(&buf, "%q: %s", k, doc[k])
	}
	buf.WriteString("\n}\n")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, r.Name()+suffix+".json"), buf.Bytes(), 0o644)
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
