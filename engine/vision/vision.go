// Package vision runs a vision projector: the image encoder a multimodal
// model's GGUF repository ships beside the language model as an
// mmproj-*.gguf file (llama.cpp's "clip" architecture). Load reads the
// projector, Encode turns a picture into embeddings of the language
// model's width, which the model reads at the positions of the image in
// the prompt instead of token embeddings.
//
// Encode follows llama.cpp's tools/mtmd: the picture is preprocessed as
// mtmd does for the projector type (resize, pad, normalize), cut into
// patches, run through the ViT/SigLIP blocks and the projector, with the
// matrix products batched over every patch on a kernels.Backend.
//
// Projector types:
//   - gemma3: SigLIP with Gemma 3's average-pooling projector; the
//     picture fitted into the encoder's square with bilinear resizing,
//     black around it, and read by the language model with attention
//     among all its embeddings.
//   - mlp: LLaVA 1.5's (and BakLLaVA's and many "llava" files'): CLIP
//     ViT with its class embedding and pre-layernorm, run up to the feature
//     layer the file names (by default all blocks but the last), and a
//     two-layer MLP (mm.0, GELU, mm.2); the picture fitted into the
//     square with mtmd's bicubic resizing on LLaVA's grey (122, 116, 104),
//     read causally between no markers of its own. LLaVA 1.6's files
//     (image-grid pinpoints, "anyres"): a picture larger than the square
//     is resized (bicubic, black around it) to the pinpoint that keeps
//     most of it and cut into tiles of the square, encoded one by one,
//     then the whole picture stretched to the square (bilinear) as an
//     overview, the tiles' embeddings first.
//   - pixtral: Pixtral's encoder (2-D rope, RMSNorm, gated feed-forward
//     layers) over the whole picture at its own aspect, Mistral Small
//     3.1's patch merger and a two-layer projector, with [IMG_BREAK]
//     between rows and [IMG_END] after (pixtral.go).
//   - qwen2vl_merger and qwen2.5vl_merger: Qwen2-VL's and Qwen2.5-VL's
//     encoder (two patch embeddings, the vision M-RoPE; Qwen2.5-VL's with
//     RMSNorm, SwiGLU and attention within windows in most blocks) over
//     the whole picture at its own aspect, and the 2 × 2 merger; the
//     language model reads the embeddings on their grid by M-RoPE
//     (qwenvl.go).
//   - idefics3: SmolVLM's SigLIP with a pixel shuffle and one linear
//     layer; the picture scaled to the file's longest edge, fitted into
//     whole squares (bicubic, black around it) and cut into them, then
//     stretched to one square as an overview; in the prompt each tile
//     follows its row and column marker and the overview SmolVLM's global
//     markers (Layout).
//
// The runner places a picture's embeddings as Layout lays them out, with
// mtmd's media marker (MediaMarker) where a projector has no begin marker
// of its own.
//
// A file of another type, or an mlp file with a variant Saji does not run
// (Yi's normalized MLP, several feature layers), fails at Load with the
// reason.
package vision

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// ErrUnsupported is wrapped by Load's error for a projector Saji cannot
// run: not a clip file, no vision encoder, or a projector type not
// implemented.
var ErrUnsupported = errors.New("vision: unsupported projector")

// ErrTooLarge is wrapped by Encode's error for a picture that makes more
// encoder squares than a projector takes (SmolVLM's without a longest
// edge).
var ErrTooLarge = errors.New("vision: the picture is too large")

// MediaMarker is mtmd's default media marker: the text that stands for a
// picture in a prompt where the projector has no begin marker of its own
// (LLaVA's).
const MediaMarker = "<__media__>"

// Options configures Load.
type Options struct {
	// Backend runs the encoder. Nil means a CPU backend with Threads
	// threads.
	Backend kernels.Backend
	// Threads is the CPU backend's thread count when Backend is nil (0:
	// hardware.DefaultThreads).
	Threads int
}

// hparams are the encoder's hyperparameters (clip.vision.*).
type hparams struct {
	imageSize, patchSize int
	embd, ffn, layers    int
	heads                int
	eps                  float32
	mean, std            [3]float32
	merge                int // gemma3: the side of the pooling window
	// blocks is the number of blocks the encoder runs: all of them
	// (gemma3), or up to LLaVA's feature layer.
	blocks int
	// quickGELU selects quick GELU (x·sigmoid(1.702x)) for the blocks'
	// feed-forward layers: clip.use_gelu false, as CLIP's files say.
	quickGELU bool
	// silu selects SiLU (clip.use_silu without use_gelu): Pixtral's
	// SwiGLU layers.
	silu bool
	// ropeTheta is the base of Pixtral's 2-D rope, and minPixels and
	// maxPixels bound the area its pictures are scaled to.
	ropeTheta            float32
	minPixels, maxPixels int
	// rms selects RMSNorms for Qwen2.5-VL's encoder (LayerNorms for
	// Qwen2-VL's), and windowPattern makes every windowPattern-th block
	// attend over the whole picture and the others within windows
	// (clip.vision.n_wa_pattern; 0: every block over the whole picture).
	rms           bool
	windowPattern int
	// pinpoints are LLaVA 1.6's image-grid resolutions (width, height):
	// a picture larger than the encoder's square is cut into tiles of one
	// of them (anyres). None for a fixed-size projector.
	pinpoints [][2]int
	// longestEdge is SmolVLM's (idefics3) preprocessing size: a picture
	// is scaled so that its longer side is this long (0: kept) before it
	// is cut into the encoder's squares.
	longestEdge int
}

// block is one ViT block's weights: pre-norm attention and MLP with
// LayerNorms (host copies of their weights and biases), or Pixtral's with
// RMSNorms (rms1, rms2) and a gated MLP (gate).
type block struct {
	ln1w, ln1b, ln2w, ln2b []float32
	rms1, rms2, gate       kernels.Tensor
	gateB                  kernels.Tensor
	// ds is Qwen3-VL's deepstack merger after the block, nil where it
	// has none.
	ds                   *deepstackMerger
	wq, wk, wv, wo       kernels.Tensor
	bq, bk, bv, bo       kernels.Tensor
	up, upB, down, downB kernels.Tensor
}

// Projector is a loaded vision projector.
type Projector struct {
	typ     string
	hp      hparams
	backend kernels.Backend
	// patch embeds a patch (3·p·p values, channel-major) as a row of embd
	// values; patchB is its bias and pos the learned position embeddings.
	patch, patchB kernels.Tensor
	pos           []float32
	// patch1 is Qwen-VL's second patch embedding (its video model's
	// second frame), summed with the first's; posSide is the side of
	// Qwen3-VL's grid of learned positions, and deepstack the count of
	// its deepstack mergers.
	patch1       kernels.Tensor
	posSide      int
	deepstack    int
	blocks       []block
	postW, postB []float32
	// postNorm is Qwen2.5-VL's post-norm, an RMSNorm.
	postNorm kernels.Tensor
	// softNorm and inProj are Gemma 3's RMSNorm weight and the projection
	// to the language model's width (transposed to [embd, lmEmbd]).
	softNorm kernels.Tensor
	inProj   kernels.Tensor
	// class is CLIP's class embedding (LLaVA), nil where the file has
	// none; preW and preB the pre-layernorm (v.pre_ln) where it has one.
	class      []float32
	preW, preB []float32
	// mm0, mm2 and their biases are the two-layer MLP projector (mlp):
	// LLaVA's mm.0 and mm.2, Pixtral's mm.1 and mm.2.
	mm0, mm0B, mm2, mm2B kernels.Tensor
	// fc is SmolVLM's projection of the pixel-shuffled patches.
	fc kernels.Tensor
	// preNorm is Pixtral's RMSNorm before the blocks; inputNorm and
	// merger its patch merger's RMSNorm and projection; imgBreak the
	// [IMG_BREAK] token's embedding.
	preNorm, inputNorm, merger kernels.Tensor
	imgBreak                   []float32
	lmEmbd                     int
	// runs counts the pictures encoded (tests count them).
	runs atomic.Int64
}

// Load reads the projector in f. Its weights are views of f's mapped data
// where the backend allows: f must stay open while the projector is in
// use.
func Load(ctx context.Context, f *gguf.File, opts Options) (*Projector, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if arch, _ := f.Architecture(); arch != "clip" {
		return nil, fmt.Errorf("%w: the file's architecture is %q, not clip", ErrUnsupported, arch)
	}
	if has, err := f.Bool("clip.has_vision_encoder"); err != nil || !has {
		return nil, fmt.Errorf("%w: the file has no vision encoder", ErrUnsupported)
	}
	typ, err := f.String("clip.vision.projector_type")
	if err != nil {
		typ, err = f.String("clip.projector_type")
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the file names no projector type", ErrUnsupported)
	}
	if typ != "gemma3" && typ != "mlp" && typ != "idefics3" && typ != "pixtral" && !isQwenVL(typ) {
		return nil, fmt.Errorf("%w: projector type %q is not implemented (Saji runs gemma3, mlp, idefics3, pixtral, %s, %s and %s)",
			ErrUnsupported, typ, typQwen2VL, typQwen25VL, typQwen3VL)
	}
	if typ == "mlp" {
		if err := llavaVariant(f); err != nil {
			return nil, err
		}
	}
	b := opts.Backend
	if b == nil {
		b = cpu.New(hardware.Threads(opts.Threads))
	}
	ld := &loader{f: f, b: b}
	p := &Projector{typ: typ, backend: b}
	p.hp = ld.hparams()
	hp := &p.hp
	hp.merge, hp.blocks = 1, hp.layers
	switch typ {
	case "gemma3":
		hp.merge = ld.intOr("clip.vision.projector.scale_factor", 4)
	case "mlp":
		hp.blocks = ld.featureLayer(hp.layers)
		hp.pinpoints = ld.pinpoints(hp.imageSize)
	case "idefics3":
		hp.merge = ld.intOr("clip.vision.projector.scale_factor", 1)
		hp.longestEdge = ld.intOr("clip.vision.preproc_image_size", 0)
	case "pixtral":
		hp.pixtral(ld)
	case typQwen2VL, typQwen25VL, typQwen3VL:
		hp.qwenVL(ld, typ)
	}
	if ld.err != nil {
		return nil, fmt.Errorf("vision: loading the %s projector: %w", typ, ld.err)
	}
	if hp.silu && typ != "pixtral" && !isQwenVL(typ) {
		return nil, fmt.Errorf("%w: the %s encoder's SiLU feed-forward layers (clip.use_silu) are not implemented", ErrUnsupported, typ)
	}
	if err := hp.check(); err != nil {
		return nil, err
	}
	if typ == "pixtral" {
		if err := hp.checkPixtral(); err != nil {
			return nil, err
		}
		if err := p.loadPixtral(ld); err != nil {
			return nil, err
		}
		return p, nil
	}
	if isQwenVL(typ) {
		if err := hp.checkQwenVL(); err != nil {
			return nil, err
		}
		if err := p.loadQwenVL(ld); err != nil {
			return nil, err
		}
		return p, nil
	}
	if typ == "idefics3" {
		if err := hp.checkIdefics3(); err != nil {
			return nil, err
		}
	}
	side := hp.imageSize / hp.patchSize
	positions := side * side
	if typ == "mlp" && ld.has("v.class_embd") {
		p.class = ld.floats("v.class_embd", hp.embd)
		positions++
	}
	p.patch = ld.weight("v.patch_embd.weight", hp.patchSize*hp.patchSize*3, hp.embd)
	p.patchB = ld.optional("v.patch_embd.bias", hp.embd)
	p.pos = ld.floats("v.position_embd.weight", hp.embd*positions)
	if ld.has("v.pre_ln.weight") {
		p.preW = ld.floats("v.pre_ln.weight", hp.embd)
		p.preB = ld.floats("v.pre_ln.bias", hp.embd)
	}
	for i := range hp.blocks {
		n := func(s string) string { return fmt.Sprintf("v.blk.%d.%s", i, s) }
		up, down := ld.ffnNames(i, hp.embd)
		blk := block{
			ln1w: ld.floats(n("ln1.weight"), hp.embd), ln1b: ld.floats(n("ln1.bias"), hp.embd),
			ln2w: ld.floats(n("ln2.weight"), hp.embd), ln2b: ld.floats(n("ln2.bias"), hp.embd),
			wq: ld.weight(n("attn_q.weight"), hp.embd, hp.embd), bq: ld.optional(n("attn_q.bias"), hp.embd),
			wk: ld.weight(n("attn_k.weight"), hp.embd, hp.embd), bk: ld.optional(n("attn_k.bias"), hp.embd),
			wv: ld.weight(n("attn_v.weight"), hp.embd, hp.embd), bv: ld.optional(n("attn_v.bias"), hp.embd),
			wo: ld.weight(n("attn_out.weight"), hp.embd, hp.embd), bo: ld.optional(n("attn_out.bias"), hp.embd),
			up: ld.weight(n(up+".weight"), hp.embd, hp.ffn), upB: ld.optional(n(up+".bias"), hp.ffn),
			down: ld.weight(n(down+".weight"), hp.ffn, hp.embd), downB: ld.optional(n(down+".bias"), hp.embd),
		}
		p.blocks = append(p.blocks, blk)
	}
	if ld.has("v.post_ln.weight") {
		p.postW = ld.floats("v.post_ln.weight", hp.embd)
		p.postB = ld.floats("v.post_ln.bias", hp.embd)
	}
	switch typ {
	case "gemma3":
		p.softNorm = ld.weight("mm.soft_emb_norm.weight", hp.embd)
		p.inProj, p.lmEmbd = ld.transposed("mm.input_projection.weight", hp.embd)
	case "idefics3":
		in := hp.embd * hp.merge * hp.merge
		p.lmEmbd = ld.rows("mm.model.fc.weight", in)
		p.fc = ld.weight("mm.model.fc.weight", in, p.lmEmbd)
	case "mlp":
		p.loadMLP(ld, "mm.0", hp.embd, true)
	}
	if ld.err != nil {
		return nil, fmt.Errorf("vision: loading the %s projector: %w", typ, ld.err)
	}
	return p, nil
}

// loadMLP reads the two-layer MLP projector (mlp) from rows of in values
// (the encoder's width, or Qwen-VL's four merged patches) to the language
// model's width: its first layer called first (LLaVA's and Qwen-VL's
// mm.0, Pixtral's mm.1), its second mm.2, and their biases, which the
// file must have where biased (LLaVA's, Qwen-VL's) and may leave out
// otherwise.
func (p *Projector) loadMLP(ld *loader, first string, in int, biased bool) {
	bias := ld.optional
	if biased {
		bias = func(name string, cols int) kernels.Tensor { return ld.weight(name, cols) }
	}
	hidden := ld.rows(first+".weight", in)
	p.mm0, p.mm0B = ld.weight(first+".weight", in, hidden), bias(first+".bias", hidden)
	p.lmEmbd = ld.rows("mm.2.weight", hidden)
	p.mm2, p.mm2B = ld.weight("mm.2.weight", hidden, p.lmEmbd), bias("mm.2.bias", p.lmEmbd)
}

// check refuses hyperparameters the encoder cannot run with.
func (hp *hparams) check() error {
	switch {
	case hp.patchSize <= 0 || hp.imageSize <= 0 || hp.imageSize%hp.patchSize != 0:
		return fmt.Errorf("%w: image size %d is not a whole number of %d-pixel patches", ErrUnsupported, hp.imageSize, hp.patchSize)
	case hp.embd <= 0 || hp.heads <= 0 || hp.embd%hp.heads != 0 || hp.layers <= 0 || hp.ffn <= 0:
		return fmt.Errorf("%w: embedding length %d with %d heads, %d blocks, feed-forward length %d", ErrUnsupported, hp.embd, hp.heads, hp.layers, hp.ffn)
	case hp.merge <= 0 || (hp.imageSize/hp.patchSize)%hp.merge != 0:
		return fmt.Errorf("%w: %d patches a side do not pool by %d", ErrUnsupported, hp.imageSize/hp.patchSize, hp.merge)
	}
	return nil
}

// maxSquares bounds the encoder squares of a SmolVLM picture (its tiles
// and overview): real files make up to 17 (longest edge 2048 over 512).
const maxSquares = 65

// checkIdefics3 refuses SmolVLM hyperparameters the encoder cannot run
// with: no pixel shuffle, or a longest edge of too many tiles.
func (hp *hparams) checkIdefics3() error {
	if hp.merge < 2 {
		return fmt.Errorf("%w: the idefics3 projector's scale factor is %d, not a pixel shuffle", ErrUnsupported, hp.merge)
	}
	if n := (hp.longestEdge + hp.imageSize - 1) / hp.imageSize; n*n+1 > maxSquares {
		return fmt.Errorf("%w: a longest edge of %d pixels makes %d squares of %d (at most %d)", ErrUnsupported, hp.longestEdge, n*n+1, hp.imageSize, maxSquares)
	}
	return nil
}

// llavaVariant refuses the mlp files of LLaVA's variants that Saji does
// not run, which llama.cpp tells apart by their keys and tensors.
func llavaVariant(f *gguf.File) error {
	if _, ok := f.Tensor("mm.3.weight"); ok {
		return fmt.Errorf("%w: the mlp projector has mm.3 (Yi-VL's normalized MLP), which Saji does not run", ErrUnsupported)
	}
	if v, ok := f.Value("clip.vision.feature_layer"); ok {
		if layers, err := v.AsInt32s(); err != nil || len(layers) > 1 {
			return fmt.Errorf("%w: the mlp projector stacks the features of several layers (clip.vision.feature_layer), which Saji does not run", ErrUnsupported)
		}
	}
	return nil
}

// featureLayer returns the number of blocks LLaVA's encoder runs, as
// llama.cpp's graph takes them: up to the feature layer the file names
// (clip.vision.feature_layer, the output of that many blocks), or all
// blocks but the last. (The legacy converter has already left out CLIP's
// last block, so files without a feature layer run one block short of
// LLaVA's penultimate layer, as llama.cpp does: upstream issue #25817.)
func (ld *loader) featureLayer(layers int) int {
	var l []int32
	if v, ok := ld.f.Value("clip.vision.feature_layer"); ok {
		l, _ = v.AsInt32s()
	}
	if len(l) == 0 {
		return max(layers-1, 0)
	}
	if len(l) != 1 || l[0] < 0 || int(l[0]) > layers {
		ld.fail(fmt.Errorf("clip.vision.feature_layer must be one layer of 0..%d", layers))
		return 0
	}
	return int(l[0])
}

// maxTiles bounds the tiles of a LLaVA 1.6 picture (the largest pinpoint
// over the encoder's square): real files have up to 9 (1008×1008 over
// 336), each a full encoder run.
const maxTiles = 16

// pinpoints reads LLaVA 1.6's image-grid pinpoints (width, height pairs),
// each a whole number of the encoder's squares.
func (ld *loader) pinpoints(size int) [][2]int {
	v, ok := ld.f.Value("clip.vision.image_grid_pinpoints")
	if !ok || v.Len() == 0 {
		return nil
	}
	l, err := v.AsInt32s()
	if err != nil || len(l)%2 != 0 {
		ld.fail(errors.New("clip.vision.image_grid_pinpoints must be width, height pairs"))
		return nil
	}
	var out [][2]int
	for i := 0; i < len(l); i += 2 {
		w, h := int(l[i]), int(l[i+1])
		if size <= 0 || w <= 0 || h <= 0 || w%size != 0 || h%size != 0 || (w/size)*(h/size) > maxTiles {
			ld.fail(fmt.Errorf("the pinpoint %d×%d is not a grid of at most %d of the encoder's %d-pixel squares", w, h, maxTiles, size))
			return nil
		}
		out = append(out, [2]int{w, h})
	}
	return out
}

// ffnNames returns the names of block i's feed-forward tensors, up then
// down: CLIP files of the older converters call the first layer (fc1)
// ffn_down and the second ffn_up, and llama.cpp swaps them back where
// ffn_down's rows are of the encoder's width.
func (ld *loader) ffnNames(i, embd int) (up, down string) {
	ti, ok := ld.f.Tensor(fmt.Sprintf("v.blk.%d.ffn_down.weight", i))
	if ok && len(ti.Shape) > 0 && ti.Shape[0] == int64(embd) {
		return "ffn_down", "ffn_up"
	}
	return "ffn_up", "ffn_down"
}

// rows returns the number of rows of the matrix called name, whose rows
// must be cols values.
func (ld *loader) rows(name string, cols int) int {
	if ld.err != nil {
		return 0
	}
	ti, ok := ld.f.Tensor(name)
	if !ok || len(ti.Shape) != 2 || ti.Shape[0] != int64(cols) || ti.Shape[1] <= 0 || ti.Shape[1] > math.MaxInt32 {
		ld.fail(fmt.Errorf("tensor %s is missing or not [%d, n]", name, cols))
		return 0
	}
	return int(ti.Shape[1])
}

// Type returns the projector type ("gemma3", "mlp", "idefics3" or
// "pixtral").
func (p *Projector) Type() string { return p.typ }

// Embd returns the length of one embedding: the language model's width,
// and as much again for each of Qwen3-VL's deepstack mergers (the
// language model's input width, model.Config.InputWidth).
func (p *Projector) Embd() int { return p.lmEmbd * (1 + p.deepstack) }

// Tokens returns the number of embeddings Encode returns for a picture
// that fits the encoder's square: one per patch, or per pooling window.
// A larger picture given to LLaVA 1.6 (pinpoints) takes that many for
// each of its tiles and its overview: len(Encode's result)/Embd().
// Pixtral's pictures take as many as their size gives (Layout); for
// Pixtral this is the count of a picture of the encoder's nominal size.
func (p *Projector) Tokens() int {
	switch {
	case p.typ == "pixtral":
		return p.hp.pixtralTokens(p.hp.imageSize, p.hp.imageSize)
	case isQwenVL(p.typ):
		cols, rows := p.hp.qwenGrid(p.hp.imageSize, p.hp.imageSize)
		return cols * rows
	}
	side := p.hp.imageSize / p.hp.patchSize / p.hp.merge
	return side * side
}

// Markers returns the text that goes before and after an image's
// embeddings in the prompt, as mtmd places it: Gemma 3's image markers,
// Pixtral's [IMG_END] after them, nothing for LLaVA (and for SmolVLM,
// whose markers go around each square: Layout).
func (p *Projector) Markers() (begin, end string) {
	switch p.typ {
	case "gemma3":
		return "<start_of_image>", "<end_of_image>"
	case "pixtral":
		return "", "[IMG_END]"
	case typQwen2VL, typQwen25VL, typQwen3VL:
		return "<|vision_start|>", "<|vision_end|>"
	}
	return "", ""
}

// dynamic reports whether the projector reads a picture at its own
// aspect, scaled to whole merges of patches (dynSize: Pixtral's and
// Qwen-VL's), not fitted into the encoder's square.
func (p *Projector) dynamic() bool { return p.typ == "pixtral" || isQwenVL(p.typ) }

// NonCausal reports whether the language model reads an image's
// embeddings with attention among all of them, not causal attention
// (mtmd_decode_use_non_causal): each embedding sees the whole picture.
func (p *Projector) NonCausal() bool { return p.typ == "gemma3" }

// Runs returns the number of pictures the projector has encoded.
func (p *Projector) Runs() int { return int(p.runs.Load()) }

// loader reads a projector's tensors and keys, keeping the first error.
type loader struct {
	f   *gguf.File
	b   kernels.Backend
	err error
}

func (ld *loader) fail(err error) {
	if ld.err == nil {
		ld.err = err
	}
}

// hparams reads the clip.vision.* hyperparameters.
func (ld *loader) hparams() hparams {
	hp := hparams{
		imageSize: ld.int("clip.vision.image_size"),
		patchSize: ld.int("clip.vision.patch_size"),
		embd:      ld.int("clip.vision.embedding_length"),
		ffn:       ld.int("clip.vision.feed_forward_length"),
		layers:    ld.int("clip.vision.block_count"),
		heads:     ld.int("clip.vision.attention.head_count"),
		eps:       1e-6,
	}
	if v, err := ld.f.Float("clip.vision.attention.layer_norm_epsilon"); err == nil {
		hp.eps = float32(v)
	}
	hp.mean, hp.std = [3]float32{0.5, 0.5, 0.5}, [3]float32{0.5, 0.5, 0.5}
	for key, dst := range map[string]*[3]float32{"clip.vision.image_mean": &hp.mean, "clip.vision.image_std": &hp.std} {
		v, ok := ld.f.Value(key)
		if !ok {
			continue
		}
		fs, err := v.AsFloat32s()
		if err != nil || len(fs) < 3 {
			ld.fail(fmt.Errorf("%s must be 3 numbers", key))
			continue
		}
		copy(dst[:], fs)
	}
	if hp.std[0] == 0 || hp.std[1] == 0 || hp.std[2] == 0 {
		ld.fail(errors.New("clip.vision.image_std has a zero"))
	}
	// The blocks' activation, as llama.cpp reads it: GELU where the file
	// says use_gelu, quick GELU where it says neither.
	gelu, _ := ld.f.Bool("clip.use_gelu")
	silu, _ := ld.f.Bool("clip.use_silu")
	hp.silu = !gelu && silu
	hp.quickGELU = !gelu && !silu
	return hp
}

// int reads a required count.
func (ld *loader) int(key string) int {
	v, err := ld.f.Uint(key)
	if err != nil {
		ld.fail(fmt.Errorf("reading %s: %w", key, err))
		return 0
	}
	if v > math.MaxInt32 {
		ld.fail(fmt.Errorf("%s is %d", key, v))
		return 0
	}
	return int(v)
}

// intOr reads an optional count.
func (ld *loader) intOr(key string, def int) int {
	if _, ok := ld.f.Value(key); !ok {
		return def
	}
	return ld.int(key)
}

// has reports whether the file has a tensor called name.
func (ld *loader) has(name string) bool {
	_, ok := ld.f.Tensor(name)
	return ok
}

// info returns the tensor called name, checking that it has the elements
// of the shape cols × rows (its dimensions past the first may be split
// further, as a patch embedding's are).
func (ld *loader) info(name string, cols, rows int) (gguf.TensorInfo, []byte, bool) {
	if ld.err != nil {
		return gguf.TensorInfo{}, nil, false
	}
	ti, ok := ld.f.Tensor(name)
	if !ok {
		ld.fail(fmt.Errorf("tensor %s is missing", name))
		return ti, nil, false
	}
	if ti.Elements() != int64(cols)*int64(rows) {
		ld.fail(fmt.Errorf("tensor %s has shape %v, want %d × %d values", name, ti.Shape, cols, rows))
		return ti, nil, false
	}
	if !ti.Type.Known() || ti.Type.BlockSize() == 0 || cols%ti.Type.BlockSize() != 0 {
		ld.fail(fmt.Errorf("tensor %s: type %v does not fit rows of %d", name, ti.Type, cols))
		return ti, nil, false
	}
	data, err := ld.f.Data(ti)
	if err != nil {
		ld.fail(err)
		return ti, nil, false
	}
	return ti, data, true
}

// weight wraps the tensor called name as a matrix of rows rows of cols
// values (a vector when rows is omitted).
func (ld *loader) weight(name string, cols int, rows ...int) kernels.Tensor {
	r := 1
	if len(rows) > 0 {
		r = rows[0]
	}
	ti, data, ok := ld.info(name, cols, r)
	if !ok {
		return nil
	}
	t, err := ld.b.Weight(ti.Type, []int{cols, r}, data)
	if err != nil {
		ld.fail(fmt.Errorf("tensor %s: %w", name, err))
		return nil
	}
	return t
}

// splitRows reads the matrix called name, rows of cols values, as
// consecutive tensors of parts[i] rows each, views of the file's data: the
// parts of a fused projection (Qwen3-VL's q, k and v; a fused bias as
// parts of one row of cols values).
func (ld *loader) splitRows(name string, cols int, parts ...int) []kernels.Tensor {
	out := make([]kernels.Tensor, len(parts))
	rows := 0
	for _, n := range parts {
		rows += n
	}
	ti, data, ok := ld.info(name, cols, rows)
	if !ok {
		return out
	}
	rb, err := ti.Type.RowSize(int64(cols))
	if err != nil {
		ld.fail(fmt.Errorf("tensor %s: %w", name, err))
		return out
	}
	at := 0
	for i, n := range parts {
		t, err := ld.b.Weight(ti.Type, []int{cols, n}, data[int64(at)*rb:int64(at+n)*rb])
		if err != nil {
			ld.fail(fmt.Errorf("tensor %s: %w", name, err))
			return out
		}
		out[i], at = t, at+n
	}
	return out
}

// optional is weight for a vector that may be absent (nil then).
func (ld *loader) optional(name string, cols int) kernels.Tensor {
	if !ld.has(name) {
		return nil
	}
	return ld.weight(name, cols)
}

// floats reads the tensor called name, n values, to the host.
func (ld *loader) floats(name string, n int) []float32 {
	ti, data, ok := ld.info(name, n, 1)
	if !ok {
		return nil
	}
	out := make([]float32, n)
	if err := quant.Dequantize(ti.Type, data, out); err != nil {
		ld.fail(fmt.Errorf("tensor %s: %w", name, err))
		return nil
	}
	return out
}

// transposed wraps the matrix called name, stored as rows of the language
// model's width, one per input (ggml's [lmEmbd, in]), as a weight of
// lmEmbd rows of in values, the layout MatMul multiplies by. The copy
// keeps the file's type (F32 or F16), as ggml's cont(transpose(w)) does.
func (ld *loader) transposed(name string, in int) (kernels.Tensor, int) {
	if ld.err != nil {
		return nil, 0
	}
	ti, ok := ld.f.Tensor(name)
	if !ok || len(ti.Shape) != 2 || ti.Shape[1] != int64(in) {
		ld.fail(fmt.Errorf("tensor %s is missing or not [n_embd, %d]", name, in))
		return nil, 0
	}
	if ti.Type != quant.TypeF32 && ti.Type != quant.TypeF16 {
		ld.fail(fmt.Errorf("tensor %s is %v: Saji reads it as F32 or F16", name, ti.Type))
		return nil, 0
	}
	out := int(ti.Shape[0])
	_, data, ok := ld.info(name, out, in)
	if !ok {
		return nil, 0
	}
	es := ti.Type.TypeSize()
	t := make([]byte, len(data))
	for r := range in {
		for c := range out {
			copy(t[(c*in+r)*es:(c*in+r+1)*es], data[(r*out+c)*es:(r*out+c+1)*es])
		}
	}
	w, err := ld.b.Weight(ti.Type, []int{in, out}, t)
	if err != nil {
		ld.fail(fmt.Errorf("tensor %s: %w", name, err))
		return nil, 0
	}
	return w, out
}
