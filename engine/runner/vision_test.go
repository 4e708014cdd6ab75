package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"saji/engine/chat"
	"saji/engine/gguf"
	"saji/engine/imagefile"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/engine/vision"
	"saji/internal/refdata"
)

// visionRef is the part of a testdata/ref/vision figure file the runner
// checks: the case that rewrites the files, mtmd's prompt tokens and the
// greedy continuation.
type visionRef struct {
	Case struct {
		Model         synth.Recipe `json:"model"`
		ProjectorSeed uint64       `json:"projector_seed"`
		W             int          `json:"width"`
		H             int          `json:"height"`
		Prompt        string       `json:"prompt"`
	} `json:"case"`
	Chunks []struct {
		Type    string  `json:"type"`
		Tokens  []int32 `json:"tokens"`
		NTokens int     `json:"n_tokens"`
	} `json:"chunks"`
	Greedy []int32 `json:"greedy"`
}

// visionModel writes a figure file's language model with its projector
// beside it (mmproj-*.gguf, found by Load) and returns the figures, the
// model's path and the picture.
func visionModel(t *testing.T, name string) (visionRef, string, imagefile.Image) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ref", "vision", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var r visionRef
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "model.gguf")
	if _, _, err := r.Case.Model.Write(context.Background(), refdata.Path(t, r.Case.Model.Vocab), path); err != nil {
		t.Fatal(err)
	}
	vs, _ := synth.LookupVisionShape(r.Case.Model.Shape)
	if err := synth.WriteProjector(context.Background(), filepath.Join(dir, "mmproj-model-f16.gguf"), vs, r.Case.ProjectorSeed); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, synth.Picture(r.Case.W, r.Case.H)); err != nil {
		t.Fatal(err)
	}
	img, err := imagefile.Decode(buf.Bytes(), imagefile.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return r, path, img
}

// TestVisionGenerate runs a prompt with a picture through the runner (the
// projector found beside the model, the picture placed at the marker,
// its embeddings read by the scheduler's batches) and checks the prompt's
// tokens against mtmd's chunks and the greedy continuation against
// llama.cpp's. A follow-up with the same picture is not encoded again,
// and takes the picture's positions from the prefix cache. Gemma 3's
// picture goes between its markers and is read with attention among its
// positions, LLaVA's between none and causally (LLaVA 1.6's of three
// squares, mtmd's three chunks, as one picture), SmolVLM's squares each
// after its markers, Pixtral's (Mistral Small 3.1's, and Pixtral 12B's
// without the merger) rows with their [IMG_BREAK]s and [IMG_END] after
// them. (SmolVLM's 90×50 figures are left out: their ninth greedy step is
// a near tie, a margin of 1e-3 in llama.cpp's own run.)
func TestVisionGenerate(t *testing.T) {
	for _, name := range []string{"tiny-gemma3-vision-f32-64x64", "tiny-llava-vision-f32-90x50", "tiny-llava16-vision-f32-70x150",
		"tiny-smolvlm-vision-f32-40x100", "tiny-mistral3-vision-f32-90x50", "tiny-pixtral-vision-f32-90x50",
		"tiny-qwen25vl-f32-160x128", "tiny-qwen2vl-f32-90x50", "tiny-qwen3vl-f32-90x50"} {
		t.Run(name, func(t *testing.T) { visionGenerate(t, name) })
	}
}

// visionGenerate is TestVisionGenerate on the figures called name.
func visionGenerate(t *testing.T, name string) {
	r, path, img := visionModel(t, name)
	m, err := Load(context.Background(), path, LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 512, MaxSeqs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !m.Vision() {
		t.Fatal("the projector beside the model was not loaded")
	}
	prompt := strings.Replace(r.Case.Prompt, "<__media__>", m.proj.marker(), 1)
	req := Request{Prompt: prompt, Images: []imagefile.Image{img}, MaxTokens: len(r.Greedy), IgnoreEOS: true}
	tokens, err := m.Prompt(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var want []int32
	for _, c := range r.Chunks {
		if c.Type == "text" {
			want = append(want, c.Tokens...)
			continue
		}
		for range c.NTokens {
			want = append(want, -1)
		}
	}
	for i, tok := range tokens {
		if tok < 0 {
			tokens[i] = -1
		}
	}
	if !slices.Equal(tokens, want) {
		t.Fatalf("prompt tokens %v, mtmd's %v", tokens, want)
	}
	generate := func() ([]int32, Result) {
		var got []int32
		res, err := m.Generate(context.Background(), req, func(p Piece) error {
			for _, tk := range p.Tokens {
				got = append(got, tk.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, res
	}
	got, _ := generate()
	if !slices.Equal(got, r.Greedy) {
		t.Errorf("greedy tokens %v, llama.cpp's %v", got, r.Greedy)
	}
	if n := m.proj.p.Runs(); n != 1 {
		t.Fatalf("the projector ran %d times for one picture", n)
	}
	again, res := generate()
	if n := m.proj.p.Runs(); n != 1 {
		t.Errorf("the projector ran %d times: the follow-up encoded the picture again", n)
	}
	if !slices.Equal(again, r.Greedy) {
		t.Errorf("the follow-up's greedy tokens %v, llama.cpp's %v", again, r.Greedy)
	}
	// The cache holds whole blocks (16 tokens) short of the last token:
	// the picture's positions, as far as they fill blocks.
	first, n := slices.Index(tokens, -1), m.proj.p.Tokens()
	if want := min(first+n, (len(tokens)-1)/16*16); res.CachedTokens < want {
		t.Errorf("the follow-up took %d of %d prompt tokens from the prefix cache, not the picture's (positions %d..%d)",
			res.CachedTokens, res.PromptTokens, first, first+n-1)
	}
}

// TestVisionRefusals checks the errors of pictures a request cannot use.
func TestVisionRefusals(t *testing.T) {
	_, path, img := visionModel(t, "tiny-gemma3-vision-f32-64x64")
	if _, err := Load(context.Background(), path, LoadOptions{Threads: 1, Projector: path}); err == nil || !strings.Contains(err.Error(), "vision projector") {
		t.Errorf("a language model named as the projector: %v", err)
	}
	// A model of the projector's width that reads no input vectors
	// (Gemma 2): the projector named is an error, the one beside it is
	// left out.
	dir := t.TempDir()
	blind := filepath.Join(dir, "gemma2.gguf")
	rc := synth.Recipe{Shape: "tiny-gemma2", Type: "f32", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"}
	if _, _, err := rc.Write(context.Background(), refdata.Path(t, rc.Vocab), blind); err != nil {
		t.Fatal(err)
	}
	vs, _ := synth.LookupVisionShape("tiny-gemma3-vision")
	proj := filepath.Join(dir, "mmproj.gguf")
	if err := synth.WriteProjector(context.Background(), proj, vs, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), blind, LoadOptions{Threads: 1, Projector: proj}); err == nil || !strings.Contains(err.Error(), "does not read a picture's embeddings") {
		t.Errorf("a projector named for Gemma 2: %v", err)
	}
	g2, err := Load(context.Background(), blind, LoadOptions{Threads: 1, Scheduler: scheduler.Config{Context: 64, MaxSeqs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if g2.Vision() {
		t.Error("Gemma 2 took the projector beside it")
	}
	g2.Close()
	// SmolVLM's projector for a model whose vocabulary lacks its markers.
	plain := filepath.Join(dir, "llama.gguf")
	rc = synth.Recipe{Shape: "tiny-llava-vision", Type: "f32", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"}
	if _, _, err := rc.Write(context.Background(), refdata.Path(t, rc.Vocab), plain); err != nil {
		t.Fatal(err)
	}
	vs, _ = synth.LookupVisionShape("tiny-smolvlm-vision")
	smol := filepath.Join(dir, "smolvlm.gguf")
	if err := synth.WriteProjector(context.Background(), smol, vs, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), plain, LoadOptions{Threads: 1, Projector: smol}); err == nil || !strings.Contains(err.Error(), `has no token "\n\n"`) {
		t.Errorf("SmolVLM's projector for a vocabulary without its markers: %v", err)
	}
	m, err := Load(context.Background(), path, LoadOptions{Threads: 1, Scheduler: scheduler.Config{Context: 512, MaxSeqs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	two := Request{Prompt: "<start_of_image> and <start_of_image>", Images: []imagefile.Image{img}}
	if _, err := m.Start(context.Background(), two); !errors.Is(err, ErrBadRequest) {
		t.Errorf("two markers for one picture: %v", err)
	}
	// Pictures without a marker go before the text.
	tokens, err := m.Prompt(context.Background(), Request{Prompt: "the cat", Images: []imagefile.Image{img, img}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(slices.DeleteFunc(slices.Clone(tokens), func(t int32) bool { return t >= 0 })); n != 32 {
		t.Errorf("%d picture positions for two pictures of 16", n)
	}
}

// gemma3Template is the chat template of Gemma 3's instruction-tuned
// models (tokenizer.chat_template), whose image parts render as
// <start_of_image>.
const gemma3Template = `{{ bos_token }}
{%- if messages[0]['role'] == 'system' -%}
    {%- if messages[0]['content'] is string -%}
        {%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}
    {%- else -%}
        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '\n\n' -%}
    {%- endif -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set first_user_prefix = "" -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
        {{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}
    {%- endif -%}
    {%- if (message['role'] == 'assistant') -%}
        {%- set role = "model" -%}
    {%- else -%}
        {%- set role = message['role'] -%}
    {%- endif -%}
    {{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else "") }}
    {%- if message['content'] is string -%}
        {{ message['content'] | trim }}
    {%- elif message['content'] is iterable -%}
        {%- for item in message['content'] -%}
            {%- if item['type'] == 'image' -%}
                {{ '<start_of_image>' }}
            {%- elif item['type'] == 'text' -%}
                {{ item['text'] | trim }}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {{ raise_exception("Invalid content type") }}
    {%- endif -%}
    {{ '<end_of_turn>\n' }}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{'<start_of_turn>model\n'}}
{%- endif -%}
`

// TestVisionChat renders a chat with an image part through Gemma 3's
// template and checks the picture's place: the begin marker, the
// picture's positions, the end marker, then the message's text; a second
// turn about the same picture takes it from the prefix cache.
func TestVisionChat(t *testing.T) {
	dir := t.TempDir()
	rc := synth.Recipe{Shape: "tiny-gemma3-vision"}
	path := filepath.Join(dir, "model.gguf")
	if err := synth.WriteVisionModel(context.Background(), path, rc.Shape, gguf.FileTypeMostlyQ8_0, 1, gemma3Template); err != nil {
		t.Fatal(err)
	}
	vs, _ := synth.LookupVisionShape(rc.Shape)
	proj := filepath.Join(dir, "projector.gguf")
	if err := synth.WriteProjector(context.Background(), proj, vs, 1); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, synth.Picture(50, 70)); err != nil {
		t.Fatal(err)
	}
	img, err := imagefile.Decode(buf.Bytes(), imagefile.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(context.Background(), path, LoadOptions{Threads: 2, Projector: proj, Scheduler: scheduler.Config{Context: 512, MaxSeqs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	msgs := []chat.Message{{Role: "user", Parts: []chat.ContentPart{{Type: "image", Image: &img}, {Type: "text", Text: "the cat"}}}}
	tokens, err := m.Prompt(context.Background(), Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	first := slices.IndexFunc(tokens, func(t int32) bool { return t < 0 })
	if first < 1 || first+16 >= len(tokens) || tokens[first+15] >= 0 || tokens[first+16] < 0 {
		t.Fatalf("the picture's positions are not 16 in a row: %v", tokens)
	}
	if got := m.tok.Text(tokens[first-1]); got != "<start_of_image>" {
		t.Errorf("the token before the picture is %q", got)
	}
	if got := m.tok.Text(tokens[first+16]); got != "<end_of_image>" {
		t.Errorf("the token after the picture is %q", got)
	}
	res, err := m.Generate(context.Background(), Request{Messages: msgs, MaxTokens: 4, IgnoreEOS: true}, func(Piece) error { return nil })
	if err != nil || res.CompletionTokens != 4 {
		t.Fatalf("generate: %+v, %v", res, err)
	}
	msgs = append(msgs, chat.Message{Role: "assistant", Content: "a mat"}, chat.Message{Role: "user", Content: "and?"})
	res, err = m.Generate(context.Background(), Request{Messages: msgs, MaxTokens: 2, IgnoreEOS: true}, func(Piece) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if m.proj.p.Runs() != 1 || res.CachedTokens < first+16 {
		t.Errorf("the second turn encoded the picture %d times and took %d tokens from the prefix cache", m.proj.p.Runs(), res.CachedTokens)
	}
}

// TestVisionChatML places a picture in a chat whose template (ChatML, the
// default) writes nothing for image parts: the part becomes its marker's
// text, as llama.cpp's server puts its media marker in the message.
// LLaVA's picture takes mtmd's media marker, which becomes no tokens of
// its own.
func TestVisionChatML(t *testing.T) {
	for _, tt := range []struct {
		name      string
		positions int
	}{{"tiny-gemma3-vision-f32-64x64", 16}, {"tiny-llava-vision-f32-64x64", 64}} {
		t.Run(tt.name, func(t *testing.T) {
			_, path, img := visionModel(t, tt.name)
			m, err := Load(context.Background(), path, LoadOptions{Threads: 1, Scheduler: scheduler.Config{Context: 512, MaxSeqs: 1}})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			msgs := []chat.Message{{Role: "user", Parts: []chat.ContentPart{{Type: "text", Text: "see"}, {Type: "image", Image: &img}}}}
			tokens, err := m.Prompt(context.Background(), Request{Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(slices.DeleteFunc(slices.Clone(tokens), func(t int32) bool { return t >= 0 })); n != tt.positions {
				t.Errorf("%d picture positions, want %d", n, tt.positions)
			}
			text := make([]int32, 0, len(tokens))
			for _, tok := range tokens {
				if tok >= 0 {
					text = append(text, tok)
				}
			}
			if s, _ := m.tok.Detokenize(text, false, false); strings.Contains(s, vision.MediaMarker) {
				t.Errorf("the prompt's text holds the media marker: %q", s)
			}
		})
	}
}

// TestVisionRepeat asks the same question about the same picture twice,
// with a question without it between: the second time from the prefix
// cache, with the same greedy tokens.
func TestVisionRepeat(t *testing.T) {
	for _, ft := range []gguf.FileType{gguf.FileTypeAllF32, gguf.FileTypeMostlyQ8_0} {
		dir := t.TempDir()
		path, proj := filepath.Join(dir, "model.gguf"), filepath.Join(dir, "mmproj.gguf")
		if err := synth.WriteVisionModel(context.Background(), path, "tiny-gemma3-vision", ft, 1, ""); err != nil {
			t.Fatal(err)
		}
		vs, _ := synth.LookupVisionShape("tiny-gemma3-vision")
		if err := synth.WriteProjector(context.Background(), proj, vs, 1); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, synth.Picture(64, 64)); err != nil {
			t.Fatal(err)
		}
		img, err := imagefile.Decode(buf.Bytes(), imagefile.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Load(context.Background(), path, LoadOptions{Threads: 1, Projector: proj, Scheduler: scheduler.Config{Context: 512, MaxSeqs: 4}})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		look := []chat.Message{{Role: "user", Parts: []chat.ContentPart{{Type: "text", Text: "What is in this picture?"}, {Type: "image", Image: &img}}}}
		text := []chat.Message{{Role: "user", Content: "What is in this picture?"}}
		var runs [3][]int32
		var cached [3]int
		for i, msgs := range [][]chat.Message{look, text, look} {
			req := Request{Messages: msgs, MaxTokens: 8, IgnoreEOS: true}
			req.Sampling = sample.Defaults()
			req.Sampling.Temperature = 0
			res, err := m.Generate(context.Background(), req, func(p Piece) error {
				for _, tok := range p.Tokens {
					runs[i] = append(runs[i], tok.ID)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			cached[i] = res.CachedTokens
		}
		if len(runs[0]) != 8 {
			t.Fatalf("%v: %d tokens, want 8", ft, len(runs[0]))
		}
		if !slices.Equal(runs[0], runs[2]) {
			t.Errorf("%v: greedy tokens %v, then %v from the prefix cache (%d tokens cached)", ft, runs[0], runs[2], cached[2])
		}
		if cached[2] == 0 {
			t.Errorf("%v: the second request took nothing from the prefix cache", ft)
		}
	}
}
