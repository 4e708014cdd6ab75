package chat

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/chat/internal/corpus"
	"saji/engine/chat/jinja"
	"saji/internal/refdata"
)

// messageFromJSON converts one corpus message into a Message.
func messageFromJSON(t *testing.T, d *jinja.Dict) Message {
	t.Helper()
	var m Message
	str := func(k string) string { v, _ := d.Get(k); s, _ := v.(string); return s }
	m.Role, m.ToolCallID, m.Name, m.ReasoningContent = str("role"), str("tool_call_id"), str("name"), str("reasoning_content")
	c, ok := d.Get("content")
	switch x := c.(type) {
	case nil:
		m.OmitContent, m.NullContent = !ok, ok
	case string:
		m.Content = x
	case *jinja.List:
		m.Parts = []ContentPart{}
		for _, p := range x.Items {
			pd := p.(*jinja.Dict)
			typ, _ := pd.Get("type")
			text, _ := pd.Get("text")
			m.Parts = append(m.Parts, ContentPart{Type: typ.(string), Text: text.(string)})
		}
	default:
		t.Fatalf("unexpected content %T", c)
	}
	if tcs, ok := d.Get("tool_calls"); ok {
		for _, tc := range tcs.(*jinja.List).Items {
			tcd := tc.(*jinja.Dict)
			fn, _ := tcd.Get("function")
			fnd := fn.(*jinja.Dict)
			id, _ := tcd.Get("id")
			typ, _ := tcd.Get("type")
			name, _ := fnd.Get("name")
			args, _ := fnd.Get("arguments")
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id.(string), Type: typ.(string), Name: name.(string), Arguments: args})
		}
	}
	return m
}

// TestRenderMessagesMatchesCorpus builds each corpus conversation as a
// Request and checks RenderMessages against the golden outputs.
func TestRenderMessagesMatchesCorpus(t *testing.T) {
	dir := refdata.Path(t, "templates")
	read := func(name string) *jinja.Dict {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		v, err := jinja.DecodeJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		return v.(*jinja.Dict)
	}
	convs := read("conversations.json")
	manifest := read("manifest.json")
	tmplsV, _ := manifest.Get("templates")
	tmpls := tmplsV.(*jinja.Dict)
	checked := 0
	for i, k := range tmpls.Keys() {
		if testing.Short() && i%3 != 0 {
			continue // a third of the templates under -short
		}
		name := k.(string)
		entry := tmpls.Values()[i].(*jinja.Dict)
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := ParseWithOptions(string(src), Options{Now: corpus.FixedNow})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden := map[string]corpus.Case{}
		for _, c := range corpus.Load(t, filepath.Join(dir, strings.TrimSuffix(name, ".jinja")+".jsonl")) {
			golden[c.ID] = c
		}
		str := func(k string) string { v, _ := entry.Get(k); s, _ := v.(string); return s }
		extra := map[string]any{}
		if bk, ok := entry.Get("base_kwargs"); ok {
			for j, kk := range bk.(*jinja.Dict).Keys() {
				extra[kk.(string)] = bk.(*jinja.Dict).Values()[j]
			}
		}
		for j, ck := range convs.Keys() {
			conv := convs.Values()[j].(*jinja.Dict)
			msgsV, _ := conv.Get("messages")
			var msgs []Message
			for _, m := range msgsV.(*jinja.List).Items {
				msgs = append(msgs, messageFromJSON(t, m.(*jinja.Dict)))
			}
			var tools []any
			if tv, _ := conv.Get("tools"); tv != nil {
				tools = append(tools, tv.(*jinja.List).Items...)
			}
			for _, gen := range []bool{true, false} {
				id := ck.(string) + "/gen=false"
				if gen {
					id = ck.(string) + "/gen=true"
				}
				want, ok := golden[id]
				if !ok {
					t.Fatalf("%s: no golden case %s", name, id)
				}
				r := Request{Messages: msgs, Tools: tools, AddGenerationPrompt: gen, BOSToken: str("bos_token"), EOSToken: str("eos_token"), Extra: extra}
				out, err := tmpl.RenderMessages(context.Background(), r)
				switch {
				case want.HasOutput && err != nil:
					t.Errorf("%s %s: %v", name, id, err)
				case want.HasOutput && out != want.Output:
					t.Errorf("%s %s: mismatch\n%s", name, id, corpus.FirstDiff(want.Output, out))
				case !want.HasOutput && err == nil:
					t.Errorf("%s %s: rendered, want error %s", name, id, want.ErrMsg)
				}
				checked++
			}
		}
	}
	t.Logf("%d cases rendered through RenderMessages", checked)
}

func TestChatML(t *testing.T) {
	r := Request{Messages: []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Parts: []ContentPart{{Type: "text", Text: "Hi "}, {Type: "text", Text: "there"}}},
		{Role: "assistant", Content: "Hello."},
		{Role: "user", Content: "Bye\n"},
	}}
	want := "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n" +
		"<|im_start|>assistant\nHello.<|im_end|>\n<|im_start|>user\nBye\n<|im_end|>\n"
	for _, gen := range []bool{false, true} {
		r.AddGenerationPrompt = gen
		out, err := ChatML().RenderMessages(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		w := want
		if gen {
			w += "<|im_start|>assistant\n"
		}
		if out != w {
			t.Errorf("gen=%v: got %q, want %q", gen, out, w)
		}
	}
}

func TestRequestVarsOrderAndAbsence(t *testing.T) {
	d, err := Request{Messages: []Message{{Role: "user", Content: "x"}}, EOSToken: "</s>", Extra: map[string]any{"b": 1, "a": true}}.Vars()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, k := range d.d.Keys() {
		keys = append(keys, k.(string))
	}
	if got, want := strings.Join(keys, ","), "messages,tools,documents,add_generation_prompt,eos_token,a,b"; got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
	tmpl, err := Parse("{{ bos_token is defined }} {{ tools is none }} {{ messages[0].content }}")
	if err != nil {
		t.Fatal(err)
	}
	out, err := tmpl.Render(context.Background(), d)
	if err != nil || out != "False True x" {
		t.Errorf("got %q, %v", out, err)
	}
}

func TestCapabilities(t *testing.T) {
	dir := refdata.Path(t, "templates")
	cases := []struct {
		file string
		want Caps
	}{
		{"google-gemma-2-2b-it.jinja", Caps{ContentParts: false}},
		{"Qwen-Qwen2.5-7B-Instruct.jinja", Caps{SystemRole: true, Tools: true, ToolCalls: true, ParallelToolCalls: true, ToolResults: true}},
		{"Qwen-Qwen3-0.6B.jinja", Caps{SystemRole: true, Tools: true, ToolCalls: true, ParallelToolCalls: true, ToolResults: true, ContentParts: false, Reasoning: true, EnableThinking: true, Thinking: true}},
		{"meta-llama-Llama-3.1-8B-Instruct.jinja", Caps{SystemRole: true, Tools: true, ToolCalls: true, ToolResults: true}},
		{"lcpptest-mistralai-Mistral-7B-Instruct-v0.2-pre-v1.jinja", Caps{}},
	}
	for _, c := range cases {
		src, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := Parse(string(src))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Capabilities(context.Background(), tmpl)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, got, c.want)
		}
	}
	got, err := Capabilities(context.Background(), ChatML())
	if err != nil {
		t.Fatal(err)
	}
	if want := (Caps{SystemRole: true, ContentParts: true}); got != want {
		t.Errorf("ChatML: got %+v, want %+v", got, want)
	}
}

func TestToolCallArguments(t *testing.T) {
	tmpl, err := Parse(`{% for m in messages %}{% for c in m.tool_calls %}{{ c.function.arguments is mapping }} {{ c.function.arguments|tojson }};{% endfor %}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args any
		want string
	}{
		{"JSON text as json.RawMessage keeps its key order", json.RawMessage(`{"b": 1, "a": [true]}`), `True {"b": 1, "a": [true]};`},
		{"text that is not JSON passes as a string", json.RawMessage(`{"b": `), `False "{\"b\": ";`},
		{"a string stays a string", `{"a": 1}`, `False "{\"a\": 1}";`},
		{"a map is sorted", map[string]any{"b": 1, "a": "x"}, `True {"a": "x", "b": 1};`},
		{"nil is an empty object", nil, `True {};`},
	}
	for _, tt := range tests {
		r := Request{Messages: []Message{{Role: "assistant", ToolCalls: []ToolCall{{Name: "f", Arguments: tt.args}}}}}
		out, err := tmpl.RenderMessages(context.Background(), r)
		if err != nil || out != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, out, err, tt.want)
		}
	}
}
