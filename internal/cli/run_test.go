package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"saji/engine/chat"
	"saji/engine/gguf"
	"saji/engine/runner"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// runCmd runs the root command with args and stdin and returns both
// output streams.
func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := NewRootCommand(Options{})
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errb.String(), err
}

// storiesRef is the first prompt of stories260K's reference and its greedy
// continuation.
type storiesRef struct {
	Text   string  `json:"text"`
	Tokens []int32 `json:"tokens"`
	Greedy struct {
		Pieces []string `json:"pieces"`
		Text   string   `json:"text"`
	} `json:"greedy"`
}

func loadStoriesRef(t *testing.T, file string) storiesRef {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(refdata.Dir(t), "ref", file))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Prompts []storiesRef `json:"prompts"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	for _, p := range ref.Prompts {
		if strings.HasPrefix(p.Text, "Once upon a time") {
			return p
		}
	}
	t.Fatal("no prompt starting with 'Once upon a time' in the reference")
	return storiesRef{}
}

var statsLine = regexp.MustCompile(`(?m)^prompt: (\d+) tokens, [0-9.]+ tokens/s; generated: (\d+) tokens, [0-9.]+ tokens/s$`)

func TestRunGreedyMatchesLlamaCpp(t *testing.T) {
	model := refdata.Path(t, "models/stories260K.gguf")
	for _, tc := range []struct{ ref, kv string }{
		{"stories260K.kvf16.json", "f16"}, // llama.cpp's defaults, and saji run's
		{"stories260K.json", "f32"},
	} {
		t.Run(tc.kv, func(t *testing.T) {
			ref := loadStoriesRef(t, tc.ref)
			out, errOut, err := runCmd(t, "", "run", "-m", model, "--temp", "0", "-n", "32", "--kv-type", tc.kv, ref.Text)
			if err != nil {
				t.Fatal(err)
			}
			// The streamed text is the pieces as llama-completion prints them; the
			// reference's text is the same tokens detokenized on their own, which
			// drops the first piece's leading space.
			if want := strings.Join(ref.Greedy.Pieces, ""); out != want {
				t.Errorf("output %q\nwant   %q", out, want)
			}
			if got := strings.TrimPrefix(out, " "); got != ref.Greedy.Text {
				t.Errorf("output %q, reference text %q", got, ref.Greedy.Text)
			}
			m := statsLine.FindStringSubmatch(errOut)
			if m == nil {
				t.Fatalf("no statistics line in %q", errOut)
			}
			if m[1] != strconv.Itoa(len(ref.Tokens)) || m[2] != "32" {
				t.Errorf("statistics %q: want %d prompt and 32 generated tokens", m[0], len(ref.Tokens))
			}
		})
	}
}

func TestRunStop(t *testing.T) {
	model := refdata.Path(t, "models/stories260K.gguf")
	ref := loadStoriesRef(t, "stories260K.kvf16.json")
	full := strings.Join(ref.Greedy.Pieces, "")
	for _, tc := range []struct {
		name  string
		stops []string
		want  string
	}{
		{"within a token", []string{" da"}, " One"},
		{"across tokens", []string{"red ball"}, " One day, she saw a big, "},
		{"earliest wins", []string{"ball", "she"}, " One day, "},
		{"started but never completed", []string{"high.\nX", "wanted to go"}, full},
		{"newline", []string{"\n"}, strings.TrimSuffix(full, "\nL")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"run", "-m", model, "--temp", "0", "-n", "32", "-q"}
			for _, s := range tc.stops {
				args = append(args, "--stop", s)
			}
			out, errOut, err := runCmd(t, "", append(args, ref.Text)...)
			if err != nil {
				t.Fatal(err)
			}
			if out != tc.want {
				t.Errorf("output %q, want %q", out, tc.want)
			}
			if errOut != "" {
				t.Errorf("--quiet wrote %q to standard error", errOut)
			}
		})
	}
}

func TestRunContextFull(t *testing.T) {
	model := refdata.Path(t, "models/stories260K.gguf")
	ref := loadStoriesRef(t, "stories260K.kvf16.json")
	n := len(ref.Tokens)
	full := strings.Join(ref.Greedy.Pieces, "")

	// Room for 4 more tokens in the context: generation stops once the
	// sequence fills it, as a served request's does.
	out, errOut, err := runCmd(t, "", "run", "-m", model, "--temp", "0", "--ctx", strconv.Itoa(n+4), ref.Text)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(ref.Greedy.Pieces[:4], ""); out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if !strings.Contains(errOut, "is full") || !strings.Contains(errOut, "generated: 4 tokens") {
		t.Errorf("standard error %q lacks the full-context note or the count", errOut)
	}
	if !strings.HasPrefix(full, out) {
		t.Errorf("output %q is not a prefix of %q", out, full)
	}

	// -n is a most: past the context, the reply stops at its end too.
	if capped, errOut, err := runCmd(t, "", "run", "-m", model, "--temp", "0", "-n", "100", "--ctx", strconv.Itoa(n+4), ref.Text); err != nil || capped != out || !strings.Contains(errOut, "is full") {
		t.Errorf("-n 100 in a context with room for 4: output %q, %v:\n%s", capped, err, errOut)
	}
	// -n 0 generates nothing.
	if none, errOut, err := runCmd(t, "", "run", "-m", model, "-n", "0", ref.Text); err != nil || none != "" || !strings.Contains(errOut, "generated: 0 tokens") {
		t.Errorf("-n 0: output %q, %v:\n%s", none, err, errOut)
	}

	_, _, err = runCmd(t, "", "run", "-m", model, "--ctx", strconv.Itoa(n-1), ref.Text)
	if err == nil || !strings.Contains(err.Error(), "raise --ctx") {
		t.Errorf("prompt longer than the context: error %v", err)
	}
}

// withTemplate copies the model at src into dir with tmpl as its chat
// template.
func withTemplate(t *testing.T, src, dir, tmpl string) string {
	t.Helper()
	f, err := gguf.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := gguf.NewWriter()
	for _, kv := range f.KVs() {
		if kv.Key == gguf.KeyChatTemplate {
			continue
		}
		if err := w.Set(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Set(gguf.KeyChatTemplate, tmpl); err != nil {
		t.Fatal(err)
	}
	for _, ti := range f.Tensors() {
		data, err := f.TensorData(ti.Name)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Shape, data); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, "chat.gguf")
	if err := w.WriteFile(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// llama3Template is Llama 3's chat template in short; it writes the BOS
// that the tokenizer also adds.
const llama3Template = `{{ bos_token }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}`

var replyStats = regexp.MustCompile(`(?m)^\[(\d+) tokens, [0-9.]+ tokens/s\]$`)

func TestRunChat(t *testing.T) {
	bare := refdata.Path(t, "models/tiny-llama3-bpe-q4_0.gguf")
	templated := withTemplate(t, bare, t.TempDir(), llama3Template)
	for _, tc := range []struct {
		name, model, stdin string
		args               []string
		replies            int
		note               bool // the ChatML note
	}{
		{"template", templated, "Hello there\nHow are you?\n", nil, 2, false},
		{"ChatML fallback", bare, "Hello there\n\n/reset\nAgain\n/exit\nnot read\n", []string{"--system", "Be brief."}, 2, true},
		{"no trailing newline", templated, "Hi", []string{"--temp", "0"}, 1, false},
		{"empty input", templated, "", nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "-m", tc.model, "-n", "6", "--seed", "7"}, tc.args...)
			out, errOut, err := runCmd(t, tc.stdin, args...)
			if err != nil {
				t.Fatal(err)
			}
			got := replyStats.FindAllStringSubmatch(errOut, -1)
			if len(got) != tc.replies {
				t.Fatalf("%d reply statistics lines, want %d:\n%s", len(got), tc.replies, errOut)
			}
			for _, m := range got {
				if m[1] == "0" {
					t.Errorf("a reply generated no tokens: %q", m[0])
				}
			}
			if tc.replies > 0 && !strings.HasSuffix(out, "\n") {
				t.Errorf("standard output does not end the last reply's line: %q", out)
			}
			if strings.Contains(errOut, "no chat template") != tc.note {
				t.Errorf("ChatML note present = %v, want %v:\n%s", !tc.note, tc.note, errOut)
			}
			if strings.Contains(tc.stdin, "/reset") && !strings.Contains(errOut, "conversation cleared") {
				t.Errorf("no note for /reset:\n%s", errOut)
			}
		})
	}
}

// TestRunChatTurns drives the generator directly: each turn re-renders the
// whole conversation through the model's template, the scheduler's prefix
// cache reuses the blocks it shares with the last turn, and a cancelled
// context stops a reply cleanly.
func TestRunChatTurns(t *testing.T) {
	path := withTemplate(t, refdata.Path(t, "models/tiny-llama3-bpe-q4_0.gguf"), t.TempDir(), llama3Template)
	ctx := context.Background()
	rf := &runFlags{modelPath: path, params: sample.Greedy(), maxTokens: 8, quiet: true, threads: 1}
	m, err := openRunModel(ctx, rf, quant.TypeF16, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	g := &generator{m: m, flags: rf}
	if want := min(m.Info.ContextTrain, scheduler.DefaultContext); m.Info.Context != want {
		t.Errorf("default context %d, want %d", m.Info.Context, want)
	}
	tk := m.Tokenizer()
	header, ok := tk.TokenID("<|start_header_id|>")
	if !ok {
		t.Fatal("the model has no <|start_header_id|> token")
	}
	msgs := []chat.Message{{Role: "user", Content: "Hello"}}
	tokens, err := m.Prompt(ctx, runner.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	// One BOS (the template's is dropped, the tokenizer adds one), then the
	// header as a special token.
	if bos := tk.BOS(); len(tokens) < 2 || tokens[0] != bos || tokens[1] != header {
		t.Errorf("the prompt does not start with BOS, <|start_header_id|>: %v", tokens)
	}
	var out bytes.Buffer
	reply, st, err := g.generate(ctx, runner.Request{Messages: msgs}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if reply != out.String() || st.promptTokens != len(tokens) || st.promptEval != len(tokens) || st.genTokens == 0 {
		t.Fatalf("first turn: reply %q, written %q, stats %+v", reply, out.String(), st)
	}

	msgs = append(msgs, chat.Message{Role: "assistant", Content: reply}, chat.Message{Role: "user", Content: "And then?"})
	tokens2, err := m.Prompt(ctx, runner.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	common := 0
	for common < len(tokens) && tokens[common] == tokens2[common] {
		common++
	}
	var a bytes.Buffer
	_, st, err = g.generate(ctx, runner.Request{Messages: msgs}, &a)
	if err != nil {
		t.Fatal(err)
	}
	blocks := common / 16 * 16 // the prefix cache keeps whole blocks of 16
	if st.promptTokens != len(tokens2) || st.promptEval > len(tokens2)-blocks {
		t.Errorf("second turn evaluated %d of %d prompt tokens; %d were cached", st.promptEval, len(tokens2), common)
	}

	// The same conversation on a model of its own gives the same reply.
	fresh, err := openRunModel(ctx, rf, quant.TypeF16, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	var b bytes.Buffer
	if _, _, err := (&generator{m: fresh, flags: rf}).generate(ctx, runner.Request{Messages: msgs}, &b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("reply with a reused cache %q, from scratch %q", a.String(), b.String())
	}

	// Cancelling stops generation after the current token, without an error.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	unlimited := *rf
	unlimited.maxTokens = -1
	cw := &cancelWriter{cancel: cancel}
	_, st, err = (&generator{m: m, flags: &unlimited}).generate(cctx, runner.Request{Messages: msgs}, cw)
	if err != nil || !st.interrupted {
		t.Fatalf("cancelled: err %v, stats %+v", err, st)
	}
	if cw.writes > 2 { // the token that cancelled, then the held-back text
		t.Errorf("%d writes after a cancel", cw.writes)
	}
}

// cancelWriter cancels a context on its first write.
type cancelWriter struct {
	cancel func()
	writes int
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.writes++
	w.cancel()
	return len(p), nil
}

func TestRunErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.gguf")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"run", "hi"}, "a model is required"},
		{"two prompts", []string{"run", "-m", missing, "a", "b"}, "accepts at most 1 arg"},
		{"unknown flag", []string{"run", "-m", missing, "--bogus"}, "unknown flag: --bogus"},
		{"temperature not a number", []string{"run", "-m", missing, "--temp", "hot"}, `invalid argument "hot" for "--temp"`},
		{"top-p", []string{"run", "-m", missing, "--top-p", "1.5"}, "run:"},
		{"min-p", []string{"run", "-m", missing, "--min-p", "-0.1"}, "run:"},
		{"repeat-last-n", []string{"run", "-m", missing, "--repeat-last-n", "-2"}, "run:"},
		{"max tokens", []string{"run", "-m", missing, "-n", "-2"}, "--max-tokens must be -1"},
		{"context", []string{"run", "-m", missing, "--ctx", "-5"}, "--ctx must not be negative"},
		{"threads", []string{"run", "-m", missing, "-t", "-1"}, "--threads must not be negative"},
		{"empty stop", []string{"run", "-m", missing, "--stop", ""}, "--stop needs a non-empty string"},
		{"cache type", []string{"run", "-m", missing, "--kv-type", "q4_0"}, "f16 or f32"},
		{"missing file", []string{"run", "-m", missing, "hi"}, "run:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runCmd(t, "", tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			if out != "" {
				t.Errorf("standard output %q", out)
			}
		})
	}
}

// TestRunGPULayers runs the tiny model with -ngl: 0 keeps it on the CPU
// without a word; 2 puts two layers on the GPU or says why not, and the
// text is the CPU's either way.
func TestRunGPULayers(t *testing.T) {
	path := tinyModel(t)
	args := []string{"run", "-m", path, "-n", "6", "--temp", "0", "-c", "64", "-t", "2", "Once upon a time"}
	out0, errs0, status := run(t, Options{}, append(args, "-ngl", "0")...)
	if status != 0 {
		t.Fatalf("-ngl 0: status %d: %s", status, errs0)
	}
	if strings.Contains(errs0, "GPU") || strings.Contains(errs0, "saji: CPU") {
		t.Errorf("-ngl 0 said %q", errs0)
	}
	out2, errs2, status := run(t, Options{}, append(args, "-ngl", "2")...)
	if status != 0 {
		t.Fatalf("-ngl 2: status %d: %s", status, errs2)
	}
	if !regexp.MustCompile(`(?m)^saji: (GPU: 2/4 layers on \S+, the rest on the CPU|CPU \(.+\))$`).MatchString(errs2) {
		t.Errorf("-ngl 2 does not say where the model runs: %q", errs2)
	}
	if out2 != out0 {
		t.Errorf("-ngl 2 wrote %q, -ngl 0 %q", out2, out0)
	}
}
