package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeModel writes a vocabulary-only GGUF with an optional chat template.
func writeModel(t *testing.T, dir, name, tmpl string) string {
	t.Helper()
	w := gguf.NewWriter()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Set(gguf.KeyArchitecture, "llama"))
	must(w.Set(gguf.KeyTokenizerModel, "llama"))
	must(w.Set(gguf.KeyTokens, []string{"<unk>", "<|bos|>", "<|eos|>", "a"}))
	must(w.Set(gguf.KeyBOSTokenID, uint32(1)))
	must(w.Set(gguf.KeyEOSTokenID, uint32(2)))
	if tmpl != "" {
		must(w.Set(gguf.KeyChatTemplate, tmpl))
	}
	p := filepath.Join(dir, name)
	must(w.WriteFile(context.Background(), p))
	return p
}

const testTemplate = `{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}{{ eos_token }}
{% endfor %}{% if add_generation_prompt %}[assistant] {% endif %}{{ tools|tojson if tools else '' }}{{ strftime_now('%d %b %Y') if date }}`

func TestTemplateCommand(t *testing.T) {
	dir := t.TempDir()
	tmplFile := writeFile(t, dir, "t.jinja", testTemplate)
	ctxFile := writeFile(t, dir, "ctx.json", `{"messages": [{"role": "user", "content": "Hi ü"}], "add_generation_prompt": true}`)
	ctxTokens := writeFile(t, dir, "tok.json", `{"messages": [{"role": "user", "content": "x"}], "bos_token": "B", "eos_token": ""}`)
	ctxTools := writeFile(t, dir, "tools.json", `{"messages": [], "tools": [{"z": 1, "a": {"é": null}}], "date": true}`)
	ctxRaise := writeFile(t, dir, "raise.json", `{"messages": [{"role": "x", "content": "y"}]}`)
	model := writeModel(t, dir, "m.gguf", testTemplate)
	bare := writeModel(t, dir, "bare.gguf", "")
	raising := writeFile(t, dir, "r.jinja", `{% if messages[0].role != 'user' %}{{ raise_exception('Roles must be user: ' ~ messages[0].role) }}{% endif %}`)

	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantStatus int
		wantOut    string // exact
		wantErr    string
	}{
		{"template file", []string{"template", "--template", tmplFile, "--context", ctxFile}, "", 0,
			"[user] Hi ü\n[assistant] ", ""},
		{"model template with default tokens", []string{"template", "-m", model, "--context", ctxFile}, "", 0,
			"<|bos|>[user] Hi ü<|eos|>\n[assistant] ", ""},
		{"context tokens win", []string{"template", "-m", model, "--context", ctxTokens}, "", 0,
			"B[user] x\n", ""},
		{"ordered tools and fixed clock", []string{"template", "--template", tmplFile, "--context", ctxTools, "--now", "2026-01-15T12:00:00Z"}, "", 0,
			`[{"z": 1, "a": {"é": null}}]15 Jan 2026`, ""},
		{"context on stdin", []string{"template", "--template", tmplFile, "--context", "-"},
			`{"messages": [{"role": "user", "content": "in"}]}`, 0, "[user] in\n", ""},
		{"ChatML fallback", []string{"template", "-m", bare, "--context", ctxFile}, "", 0,
			"<|im_start|>user\nHi ü<|im_end|>\n<|im_start|>assistant\n", "no chat template"},
		{"raise_exception", []string{"template", "--template", raising, "--context", ctxRaise}, "", 1, "",
			"Roles must be user: x"},
		{"neither source", []string{"template", "--context", ctxFile}, "", 1, "", "either a model"},
		{"both sources", []string{"template", "-m", model, "--template", tmplFile, "--context", ctxFile}, "", 1, "", "either a model"},
		{"no context", []string{"template", "--template", tmplFile}, "", 1, "", "context is required"},
		{"bad context", []string{"template", "--template", tmplFile, "--context", "-"}, "[1, 2]", 1, "", "not a JSON object"},
		{"missing model", []string{"template", "-m", filepath.Join(dir, "none.gguf"), "--context", ctxFile}, "", 1, "", "template:"},
		{"syntax error", []string{"template", "--template", writeFile(t, dir, "bad.jinja", "{% if %}"), "--context", ctxFile}, "", 1, "", "syntax error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := NewRootCommand(Options{})
			var out, errb bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&errb)
			root.SetIn(strings.NewReader(tt.stdin))
			root.SetArgs(tt.args)
			err := root.ExecuteContext(context.Background())
			status := 0
			if err != nil {
				status = 1
				errb.WriteString(err.Error())
			}
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d (stderr %q)", status, tt.wantStatus, errb.String())
			}
			if tt.wantStatus == 0 && out.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tt.wantOut)
			}
			if !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.wantErr)
			}
		})
	}
}

// TestTemplateCommandRealModel renders the chat template a reference
// vocabulary carries (Phi-3), with its BOS token.
func TestTemplateCommandRealModel(t *testing.T) {
	model := refdata.Path(t, "vocab/ggml-vocab-phi-3.gguf")
	ctx := writeFile(t, t.TempDir(), "ctx.json", `{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Héllo \"there\""}], "add_generation_prompt": true}`)
	out, errs, status := run(t, Options{}, "template", "-m", model, "--context", ctx)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	if want := "<s><|user|>\nHéllo \"there\"<|end|>\n<|assistant|>\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// TestTemplateCommandCorpus renders golden corpus cases through the
// command: the context file has exactly the corpus's context shape.
func TestTemplateCommandCorpus(t *testing.T) {
	dir := refdata.Path(t, "templates")
	tmp := t.TempDir()
	for _, name := range []string{"Qwen-Qwen3-0.6B", "meta-llama-Llama-3.1-8B-Instruct", "google-gemma-2-2b-it"} {
		data, err := os.ReadFile(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if i >= 6 {
				break
			}
			var rec struct {
				Case    string          `json:"case"`
				Context json.RawMessage `json:"context"`
				Output  *string         `json:"output"`
				Error   string          `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			ctx := writeFile(t, tmp, "ctx.json", string(rec.Context))
			out, errs, status := run(t, Options{}, "template", "--template", filepath.Join(dir, name+".jinja"),
				"--context", ctx, "--now", "2026-01-15T12:00:00Z")
			switch {
			case rec.Output != nil && (status != 0 || out != *rec.Output):
				t.Errorf("%s %s: status %d, stderr %q\n got %q\nwant %q", name, rec.Case, status, errs, out, *rec.Output)
			case rec.Output == nil && (status == 0 || !strings.Contains(errs, rec.Error)):
				t.Errorf("%s %s: status %d, stderr %q, want error %q", name, rec.Case, status, errs, rec.Error)
			}
		}
	}
}
