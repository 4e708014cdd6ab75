package runner

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"saji/engine/chat"
	"saji/engine/gguf"
	"saji/engine/imagefile"
	"saji/engine/model"
	"saji/engine/scheduler"
	"saji/engine/tokenizer"
	"saji/engine/vision"
	"saji/kernels"
)

// pictureCache is how many pictures' embeddings a model keeps, so that a
// follow-up question about a picture does not encode it again (its
// positions' keys and values are in the prefix cache too).
const pictureCache = 8

// projector is a model's vision projector and the embeddings of its last
// pictures.
type projector struct {
	file *gguf.File
	p    *vision.Projector
	// threads is the CPU backend's thread count, and log the logger, for
	// the CPU copy that takes over when the projector on the model's GPU
	// fails (onGPU).
	threads int
	log     *slog.Logger
	onGPU   bool
	// whole holds the ids of the tokens the projector's layouts look up
	// by their text (vision.Projector.WholeTokens).
	whole map[string]int32
	mu    sync.Mutex
	// recent holds the last pictures' embeddings, the most recent last.
	recent []encoded
}

// encoded is a picture's embeddings and its place in the prompt
// (vision.Projector.Layout), by the hash of its bytes.
type encoded struct {
	hash  [32]byte
	embd  []float32
	parts []vision.Part
}

// FindProjector returns the vision projector beside the model file at
// path: a file named mmproj*.gguf in its folder (the first by name when
// there are several), or "" when there is none.
func FindProjector(path string) string {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "mmproj*.gguf"))
	slices.Sort(matches)
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() && m != path {
			return m
		}
	}
	return ""
}

// loadProjector loads the projector at path (found beside the model when
// path is "") for the language model described by cfg and tok: one that
// reads input vectors, of the projector's width, whose vocabulary has the
// markers the projector looks up whole. A projector found beside the
// model that does not fit it is left out with a note; one named by the
// options is an error. Where the model runs on a GPU (gpu not nil), the
// encoder runs there too, as llama.cpp offloads its mmproj; where its
// weights do not go there, or an encoding fails there, on the CPU.
func loadProjector(ctx context.Context, path, modelPath string, cfg model.Config, tok *tokenizer.Tokenizer, threads int, gpu kernels.Backend, log *slog.Logger) (*projector, error) {
	named := path != ""
	if !named {
		if path = FindProjector(modelPath); path == "" {
			return nil, nil
		}
	}
	f, err := gguf.Open(path)
	if err != nil {
		if !named {
			log.Info("runner: no vision: the projector beside the model does not open", "path", path, "err", err)
			return nil, nil
		}
		return nil, fmt.Errorf("the vision projector: %w", err)
	}
	var p *vision.Projector
	onGPU := false
	if gpu != nil {
		if p, err = vision.Load(ctx, f, vision.Options{Backend: gpu}); err == nil {
			onGPU = true
		} else if ctx.Err() == nil {
			log.Warn("runner: the vision projector runs on the CPU: it does not load on the model's GPU", "path", path, "err", err)
		}
	}
	if !onGPU {
		p, err = vision.Load(ctx, f, vision.Options{Threads: threads})
	}
	switch {
	case err != nil:
	case !cfg.Vectors:
		err = fmt.Errorf("vision: the model (%s) does not read a picture's embeddings, which the projector %s makes", cfg.Arch, filepath.Base(path))
	case p.Embd() != cfg.InputWidth():
		err = fmt.Errorf("vision: the projector %s makes embeddings of %d values, the model reads vectors of %d", filepath.Base(path), p.Embd(), cfg.InputWidth())
	}
	var whole map[string]int32
	if err == nil {
		whole, err = wholeTokens(tok, p.WholeTokens())
	}
	if err != nil {
		f.Close()
		if !named {
			log.Info("runner: no vision: the projector beside the model does not fit it", "path", path, "err", err)
			return nil, nil
		}
		return nil, fmt.Errorf("the vision projector: %w", err)
	}
	return &projector{file: f, p: p, whole: whole, threads: threads, log: log, onGPU: onGPU}, nil
}

// wholeTokens returns the ids of the tokens whose text (special tokens
// as they are written) is each of texts: the first such id, as mtmd's
// lookup_token finds it.
func wholeTokens(tok *tokenizer.Tokenizer, texts []string) (map[string]int32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	ids := make(map[string]int32, len(texts))
	for id := range int32(tok.NumTokens()) {
		piece := tok.TokenToPiece(id, true)
		if _, seen := ids[piece]; !seen && slices.Contains(texts, piece) {
			ids[piece] = id
		}
	}
	for _, t := range texts {
		if _, ok := ids[t]; !ok {
			return nil, fmt.Errorf("vision: the model's vocabulary has no token %q, which the projector's pictures need", t)
		}
	}
	return ids, nil
}

// embeddings returns img's embeddings and their place in the prompt:
// kept from an earlier request, or encoded now.
func (pr *projector) embeddings(ctx context.Context, img imagefile.Image) (encoded, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for i, e := range pr.recent {
		if e.hash == img.Hash {
			pr.recent = append(slices.Delete(pr.recent, i, i+1), e)
			return e, nil
		}
	}
	if img.Image == nil {
		return encoded{}, fmt.Errorf("%w: a picture without pixels", ErrBadRequest)
	}
	embd, err := pr.p.Encode(ctx, img.Image)
	if err != nil && pr.onGPU && ctx.Err() == nil && !errors.Is(err, vision.ErrTooLarge) {
		// The GPU failed (out of memory, a fault): the CPU encodes this
		// picture and the ones after it.
		pr.log.Warn("runner: the vision projector moves to the CPU: encoding on the GPU failed", "err", err)
		p, lerr := vision.Load(ctx, pr.file, vision.Options{Threads: pr.threads})
		if lerr != nil {
			return encoded{}, fmt.Errorf("runner: %w (and on the CPU: %w)", err, lerr)
		}
		pr.p, pr.onGPU = p, false
		embd, err = pr.p.Encode(ctx, img.Image)
	}
	if errors.Is(err, vision.ErrTooLarge) {
		return encoded{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if err != nil {
		return encoded{}, fmt.Errorf("runner: %w", err)
	}
	b := img.Image.Bounds()
	e := encoded{hash: img.Hash, embd: embd, parts: pr.p.Layout(b.Dx(), b.Dy())}
	if len(pr.recent) == pictureCache {
		pr.recent = slices.Delete(pr.recent, 0, 1)
	}
	pr.recent = append(pr.recent, e)
	return e, nil
}

// pictureIDs returns the ids of a picture's n positions: negative numbers
// drawn from the hash of its bytes, a different one for each position,
// so that the prefix cache keys the positions by the picture's content
// (and a block of them by hundreds of bits of it).
func pictureIDs(hash [32]byte, n int) []int32 {
	ids := make([]int32, n)
	var buf [36]byte
	copy(buf[:], hash[:])
	for i := range ids {
		binary.LittleEndian.PutUint32(buf[32:], uint32(i))
		s := sha256.Sum256(buf[:])
		ids[i] = -1 - int32(binary.LittleEndian.Uint32(s[:4])&0x7fffffff)
	}
	return ids
}

// requestImages returns req's pictures in prompt order: the chat's image
// parts, or a raw prompt's Images.
func (req *Request) requestImages() []imagefile.Image {
	if req.Messages == nil {
		return req.Images
	}
	var imgs []imagefile.Image
	for _, msg := range req.Messages {
		for _, p := range msg.Parts {
			if p.Image != nil {
				imgs = append(imgs, *p.Image)
			}
		}
	}
	return imgs
}

// encodePictures tokenizes prompt text s holding the projector's picture
// marker once for each of imgs, as mtmd does: the text between the
// pictures tokenized piece by piece (BOS before the first when
// addSpecial), and each picture as its layout's parts (its markers and
// its embeddings' positions; vision.Projector.Layout). A raw prompt
// without markers gets its pictures before the text (chat is false).
func (m *Model) encodePictures(ctx context.Context, s string, addSpecial, chat bool, imgs []imagefile.Image) ([]int32, []scheduler.Picture, error) {
	pr := m.proj
	marker := pr.marker()
	if n := strings.Count(s, marker); n != len(imgs) {
		if chat || n != 0 {
			return nil, nil, fmt.Errorf("%w: the prompt has %d picture markers (%s) for %d pictures", ErrBadRequest, n, marker, len(imgs))
		}
		s = strings.Repeat(marker, len(imgs)) + s
	}
	pieces := strings.Split(s, marker)
	tokens := m.tok.Encode(pieces[0], addSpecial, true)
	var pics []scheduler.Picture
	width := pr.p.Embd()
	for i, img := range imgs {
		e, err := pr.embeddings(ctx, img)
		if err != nil {
			return nil, nil, err
		}
		ids := pictureIDs(img.Hash, len(e.embd)/width)
		at := 0 // the picture's embeddings placed so far
		for _, part := range e.parts {
			switch {
			case part.N > 0:
				if (at+part.N)*width > len(e.embd) {
					return nil, nil, fmt.Errorf("runner: the picture's layout takes more than its %d embeddings", len(ids))
				}
				pics = append(pics, scheduler.Picture{At: len(tokens), N: part.N,
					Embd: e.embd[at*width : (at+part.N)*width], Bidirectional: pr.p.NonCausal(), Rows: part.Rows, Cols: part.Cols})
				tokens = append(tokens, ids[at:at+part.N]...)
				at += part.N
			case part.Token != "":
				tokens = append(tokens, pr.whole[part.Token])
			default:
				tokens = append(tokens, m.tok.Encode(part.Text, false, true)...)
			}
		}
		tokens = append(tokens, m.tok.Encode(pieces[i+1], false, true)...)
	}
	return tokens, pics, nil
}

// marker returns the text that stands for a picture in a prompt: the
// projector's begin marker, or mtmd's media marker where the projector
// has none (LLaVA's pictures go between no markers).
func (pr *projector) marker() string {
	if begin, _ := pr.p.Markers(); begin != "" {
		return begin
	}
	return vision.MediaMarker
}

// marked reports whether rendered prompt text holds the picture marker.
func (pr *projector) marked(s string) bool { return strings.Contains(s, pr.marker()) }

// markerParts returns msgs with each image part replaced by a text part
// holding the picture marker (the picture stays with the request).
func (pr *projector) markerParts(msgs []chat.Message) []chat.Message {
	marker := pr.marker()
	out := slices.Clone(msgs)
	for i, msg := range out {
		if !slices.ContainsFunc(msg.Parts, func(p chat.ContentPart) bool { return p.Image != nil }) {
			continue
		}
		parts := slices.Clone(msg.Parts)
		for j, p := range parts {
			if p.Image != nil {
				parts[j] = chat.ContentPart{Type: "text", Text: marker}
			}
		}
		out[i].Parts = parts
	}
	return out
}

// Vision reports whether the model can see the pictures of a request (it
// was loaded with a vision projector); Start refuses pictures to a model
// that cannot. The API's capabilities and the app read it.
func (m *Model) Vision() bool { return m.proj != nil }
