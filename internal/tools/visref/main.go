// Command visref makes the reference figures of the synthetic vision
// models in testdata/ref: for each case it lists, it writes the tiny
// language model and its projector with Saji's seeded writers
// (engine/synth), the test picture (synth.Picture) as raw RGB, runs
// llama.cpp's visdump on them (testdata/visdump: a small program against
// libmtmd at the reference commit, built as testdata/README.md says), and
// saves visdump's JSON with the recipe that rewrites the very same files
// and their sha256. engine/vision's conformance test rewrites the files
// from the recipe and compares Saji's embeddings and greedy tokens with
// llama.cpp's.
//
// Usage: go run ./internal/tools/visref -visdump PATH [-data ../shared/testdata] [-o testdata/ref/vision] [-shape NAME]
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"saji/engine/synth"
)

// Case is one reference: a language model, its projector, a picture of
// W × H and a prompt with mtmd's media marker where the picture goes.
type Case struct {
	Model synth.Recipe `json:"model"`
	// ProjectorSeed seeds synth.WriteProjector for the model's shape.
	ProjectorSeed uint64 `json:"projector_seed"`
	W             int    `json:"width"`
	H             int    `json:"height"`
	Prompt        string `json:"prompt"`
}

// Name is the figures' file name without .json.
func (c Case) Name() string { return fmt.Sprintf("%s-%s-%dx%d", c.Model.Shape, c.Model.Type, c.W, c.H) }

// Cases lists the references: for each fixed-size projector a picture of
// the encoder's size (no resize) and one that is resized and padded; for
// LLaVA 1.6 pictures of one, three and three squares; for SmolVLM two
// pictures cut into squares.
var Cases = []Case{
	{Model: synth.Recipe{Shape: "tiny-gemma3-vision", Type: "f32", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"},
		ProjectorSeed: 1, W: 64, H: 64, Prompt: "the cat <__media__> sat on"},
	{Model: synth.Recipe{Shape: "tiny-gemma3-vision", Type: "f32", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"},
		ProjectorSeed: 1, W: 90, H: 50, Prompt: "a cat <__media__> the mat"},
	{Model: synth.Recipe{Shape: "tiny-llava-vision", Type: "f32", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"},
		ProjectorSeed: 1, W: 64, H: 64, Prompt: "the cat <__media__> sat on"},
	{Model: synth.Recipe{Shape: "tiny-llava-vision", Type: "f32", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"},
		ProjectorSeed: 1, W: 90, H: 50, Prompt: "a cat <__media__> the mat"},
	// LLaVA 1.6: a picture within the square (only its overview) and two
	// beyond it, cut into two squares side by side and two stacked.
	{Model: synth.Recipe{Shape: "tiny-llava16-vision", Type: "f32", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"},
		ProjectorSeed: 1, W: 50, H: 40, Prompt: "the cat <__media__> sat on"},
	{Model: synth.Recipe{Shape: "tiny-llava16-vision", Type: "f32", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"},
		ProjectorSeed: 1, W: 90, H: 50, Prompt: "a cat <__media__> the mat"},
	{Model: synth.Recipe{Shape: "tiny-llava16-vision", Type: "f32", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"},
		ProjectorSeed: 1, W: 70, H: 150, Prompt: "a cat <__media__> the mat"},
	// SmolVLM (idefics3), over the mini vocabulary with its markers: a
	// picture scaled up to 128×128 (four squares and the overview) and
	// one to 64×128 (two and the overview).
	{Model: synth.Recipe{Shape: "tiny-smolvlm-vision", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 90, H: 50, Prompt: "the cat <__media__> sat on"},
	{Model: synth.Recipe{Shape: "tiny-smolvlm-vision", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 40, H: 100, Prompt: "a cat <__media__> the mat"},
	// Mistral Small 3.1's kind (pixtral), over the mini vocabulary with
	// Mistral's markers: a picture of whole merges (kept as it is), one
	// rounded to them (96×48) and one below the fewest pixels, scaled up
	// (64×48).
	{Model: synth.Recipe{Shape: "tiny-mistral3-vision", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 64, H: 32, Prompt: "the cat <__media__> sat on"},
	{Model: synth.Recipe{Shape: "tiny-mistral3-vision", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 90, H: 50, Prompt: "a cat <__media__> the mat"},
	{Model: synth.Recipe{Shape: "tiny-mistral3-vision", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 20, H: 12, Prompt: "the cat <__media__> sat on"},
	// Pixtral 12B's kind (no patch merger): a picture rounded to whole
	// patches (88×48).
	{Model: synth.Recipe{Shape: "tiny-pixtral-vision", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 90, H: 50, Prompt: "a cat <__media__> the mat"},
	// Qwen2.5-VL's kind, over the mini vocabulary with Qwen's markers: a
	// picture of 10 × 8 merges in four windows (7 × 7, 3 × 7, 7 × 1,
	// 3 × 1), one rounded to 6 × 3 merges in one, and one below the
	// fewest pixels, scaled up (4 × 2). The language model reads them on
	// their grids by M-RoPE, and the text after a picture continues from
	// its time position plus the grid's larger side.
	{Model: synth.Recipe{Shape: "tiny-qwen25vl", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 160, H: 128, Prompt: "the cat <__media__> sat on"},
	{Model: synth.Recipe{Shape: "tiny-qwen25vl", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 90, H: 50, Prompt: "a cat <__media__> the mat"},
	{Model: synth.Recipe{Shape: "tiny-qwen25vl", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 20, H: 12, Prompt: "the cat <__media__> sat on"},
	// Qwen3-VL's kind: a picture of the learned positions' 8 × 8 patches
	// (kept), one rounded to 12 × 6 patches and one scaled up to 8 × 6
	// (the positions resized to them), each vector carrying the two
	// deepstack mergers' embeddings after the main one.
	{Model: synth.Recipe{Shape: "tiny-qwen3vl", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 64, H: 64, Prompt: "the cat <__media__> sat on"},
	{Model: synth.Recipe{Shape: "tiny-qwen3vl", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 90, H: 50, Prompt: "a cat <__media__> the mat"},
	{Model: synth.Recipe{Shape: "tiny-qwen3vl", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 20, H: 12, Prompt: "the cat <__media__> sat on"},
	// Qwen2-VL's kind (LayerNorms, quick GELU, no windows).
	{Model: synth.Recipe{Shape: "tiny-qwen2vl", Type: "f32", Seed: 1},
		ProjectorSeed: 1, W: 90, H: 50, Prompt: "a cat <__media__> the mat"},
}

func main() {
	visdump := flag.String("visdump", "", "the visdump program")
	data := flag.String("data", "../shared/testdata", "the shared testdata")
	out := flag.String("o", "testdata/ref/vision", "where the figures go")
	only := flag.String("shape", "", "only the cases of this language model shape (all when empty)")
	flag.Parse()
	if *visdump == "" {
		fmt.Fprintln(os.Stderr, "visref: -visdump is required")
		os.Exit(2)
	}
	for _, c := range Cases {
		if *only != "" && c.Model.Shape != *only {
			continue
		}
		if err := run(context.Background(), c, *visdump, *data, *out); err != nil {
			fmt.Fprintln(os.Stderr, "visref:", c.Name()+":", err)
			os.Exit(1)
		}
		fmt.Println("wrote", c.Name())
	}
}

// Files writes c's language model, projector and raw picture into dir and
// returns their paths and the model's and projector's sha256.
func Files(ctx context.Context, c Case, data, dir string) (model, proj, rgb, modelSum, projSum string, err error) {
	model, proj, rgb = filepath.Join(dir, "model.gguf"), filepath.Join(dir, "mmproj.gguf"), filepath.Join(dir, "image.rgb")
	if modelSum, _, err = c.Model.Write(ctx, filepath.Join(data, c.Model.Vocab), model); err != nil {
		return
	}
	vs, ok := synth.LookupVisionShape(c.Model.Shape)
	if !ok {
		err = fmt.Errorf("no projector pairs with shape %s", c.Model.Shape)
		return
	}
	if err = synth.WriteProjector(ctx, proj, vs, c.ProjectorSeed); err != nil {
		return
	}
	b, err := os.ReadFile(proj)
	if err != nil {
		return
	}
	s := sha256.Sum256(b)
	projSum = hex.EncodeToString(s[:])
	img := synth.Picture(c.W, c.H)
	pix := make([]byte, 0, 3*c.W*c.H)
	for i := 0; i < len(img.Pix); i += 4 {
		pix = append(pix, img.Pix[i], img.Pix[i+1], img.Pix[i+2])
	}
	err = os.WriteFile(rgb, pix, 0o644)
	return
}

// run makes one case's figures.
func run(ctx context.Context, c Case, visdump, data, out string) error {
	dir, err := os.MkdirTemp("", "visref")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	model, proj, rgb, modelSum, projSum, err := Files(ctx, c, data, dir)
	if err != nil {
		return err
	}
	raw := filepath.Join(dir, "out.json")
	cmd := exec.CommandContext(ctx, visdump, model, proj, rgb, strconv.Itoa(c.W), strconv.Itoa(c.H), c.Prompt, raw, "1", "16")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("visdump: %w", err)
	}
	b, err := os.ReadFile(raw)
	if err != nil {
		return err
	}
	var fig map[string]any
	if err := json.Unmarshal(b, &fig); err != nil {
		return fmt.Errorf("visdump's output: %w", err)
	}
	fig["case"] = c
	fig["model_sha256"] = modelSum
	fig["projector_sha256"] = projSum
	b, err = json.Marshal(fig)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, c.Name()+".json"), append(b, '\n'), 0o644)
}
