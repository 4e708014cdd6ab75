package chat

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"saji/internal/refdata"
)

// wantCall is an expected call; an empty ID means a generated one.
type wantCall struct{ id, name, args string }

type toolCallCase struct {
	name    string
	f       ToolFormat
	text    string
	content string
	calls   []wantCall
}

var toolCallCases = []toolCallCase{
	// Hermes / Qwen.
	{"hermes one", ToolHermes, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
		"", []wantCall{{"", "get_weather", `{"city":"Paris"}`}}},
	{"hermes several", ToolHermes, "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n</tool_call>",
		"", []wantCall{{"", "a", `{}`}, {"", "b", `{"x":1}`}}},
	{"hermes content before", ToolHermes, "Let me check.\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"q\": \"x\"}}\n</tool_call>\n",
		"Let me check.", []wantCall{{"", "f", `{"q":"x"}`}}},
	{"hermes nested unicode escapes", ToolHermes, `<tool_call>{"name": "note", "arguments": {"text": "caf\u00e9 ☕ \"quoted\" </tool_call>", "meta": {"tags": ["a", {"b": [1, 2.5, null]}]}}}</tool_call>`,
		"", []wantCall{{"", "note", `{"text":"caf\u00e9 ☕ \"quoted\" </tool_call>","meta":{"tags":["a",{"b":[1,2.5,null]}]}}`}}},
	{"hermes list in one block", ToolHermes, `<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": "{\"k\": true}"}]</tool_call>`,
		"", []wantCall{{"", "a", `{}`}, {"", "b", `{"k":true}`}}},
	{"hermes no arguments key", ToolHermes, `<tool_call>{"name": "now"}</tool_call>`, "", []wantCall{{"", "now", `{}`}}},
	{"hermes unclosed at end", ToolHermes, "ok <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n", "ok", []wantCall{{"", "f", `{"a":1}`}}},
	{"hermes malformed", ToolHermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1,}}\n</tool_call>",
		"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1,}}\n</tool_call>", nil},
	{"hermes not json", ToolHermes, "<tool_call>get_weather(Paris)</tool_call> and <tool_call>", "<tool_call>get_weather(Paris)</tool_call> and <tool_call>", nil},
	{"hermes malformed then good", ToolHermes, "<tool_call>{\"nam</tool_call><tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>",
		"<tool_call>{\"nam</tool_call>", []wantCall{{"", "g", `{}`}}},
	{"hermes unterminated json", ToolHermes, "<tool_call>{\"name\": \"f\", \"arguments\": {", "<tool_call>{\"name\": \"f\", \"arguments\": {", nil},
	{"hermes no call", ToolHermes, "Just text, with <b>tags</b> and a trailing newline.\n", "Just text, with <b>tags</b> and a trailing newline.\n", nil},
	{"hermes keeps id", ToolHermes, `<tool_call>{"name": "f", "arguments": {}, "id": "xyz"}</tool_call>`, "", []wantCall{{"xyz", "f", `{}`}}},

	// Llama 3.x.
	{"llama one", ToolLlama3, `{"name": "get_weather", "parameters": {"city": "Paris"}}`, "", []wantCall{{"", "get_weather", `{"city":"Paris"}`}}},
	{"llama python tag", ToolLlama3, `<|python_tag|>{"name": "f", "parameters": {"a": [1, 2]}}`, "", []wantCall{{"", "f", `{"a":[1,2]}`}}},
	{"llama several", ToolLlama3, "{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"arguments\": {\"x\": \"y\"}}\n{\"name\": \"c\", \"parameters\": {}}",
		"", []wantCall{{"", "a", `{}`}, {"", "b", `{"x":"y"}`}, {"", "c", `{}`}}},
	{"llama content before tag", ToolLlama3, "I will search.<|python_tag|>{\"name\": \"search\", \"parameters\": {\"q\": \"go\"}}",
		"I will search.", []wantCall{{"", "search", `{"q":"go"}`}}},
	{"llama nested unicode escapes", ToolLlama3, " \n{\"name\": \"say\", \"parameters\": {\"text\": \"\\\"hi\\\" — 日本 \\\\ \\n\", \"opts\": {\"deep\": {\"er\": [{}]}}}}\n",
		"", []wantCall{{"", "say", `{"text":"\"hi\" — 日本 \\ \n","opts":{"deep":{"er":[{}]}}}`}}},
	{"llama malformed", ToolLlama3, `{"name": "f", "parameters": {"a": }}`, `{"name": "f", "parameters": {"a": }}`, nil},
	{"llama plain json", ToolLlama3, `{"answer": 42}`, `{"answer": 42}`, nil},
	{"llama json then text", ToolLlama3, `{"name": "f", "parameters": {}} is how you call it.`, `{"name": "f", "parameters": {}} is how you call it.`, nil},
	{"llama builtin tool syntax", ToolLlama3, `<|python_tag|>brave_search.call(query="x")`, `<|python_tag|>brave_search.call(query="x")`, nil},
	{"llama no call", ToolLlama3, "Hello! How can I help?", "Hello! How can I help?", nil},
	{"llama text mentioning braces", ToolLlama3, "Use {\"name\": \"f\", \"parameters\": {}} later.", "Use {\"name\": \"f\", \"parameters\": {}} later.", nil},

	// Mistral.
	{"mistral list one", ToolMistral, `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcDEF123"}]`,
		"", []wantCall{{"abcDEF123", "get_weather", `{"city":"Paris"}`}}},
	{"mistral list several", ToolMistral, `[TOOL_CALLS][{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"n": -1e3}}]`,
		"", []wantCall{{"", "a", `{}`}, {"", "b", `{"n":-1e3}`}}},
	{"mistral args form", ToolMistral, `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`, "", []wantCall{{"", "get_weather", `{"city":"Paris"}`}}},
	{"mistral args form several", ToolMistral, `[TOOL_CALLS]a[ARGS]{}[TOOL_CALLS]b_2[ARGS]{"x": {"y": "]}"}}`,
		"", []wantCall{{"", "a", `{}`}, {"", "b_2", `{"x":{"y":"]}"}}`}}},
	{"mistral call id form", ToolMistral, `[TOOL_CALLS]f[CALL_ID]A1b2C3d4E[ARGS]{"q": "ü \"x\""}`, "", []wantCall{{"A1b2C3d4E", "f", `{"q":"ü \"x\""}`}}},
	{"mistral content before", ToolMistral, "Sure. [TOOL_CALLS]f[ARGS]{}", "Sure.", []wantCall{{"", "f", `{}`}}},
	{"mistral malformed list", ToolMistral, `[TOOL_CALLS][{"name": "f", "arguments": {]`, `[TOOL_CALLS][{"name": "f", "arguments": {]`, nil},
	{"mistral malformed args", ToolMistral, `[TOOL_CALLS]f[ARGS]{"a": tru}`, `[TOOL_CALLS]f[ARGS]{"a": tru}`, nil},
	{"mistral bad name", ToolMistral, `[TOOL_CALLS]not a name[ARGS]{}`, `[TOOL_CALLS]not a name[ARGS]{}`, nil},
	{"mistral unterminated", ToolMistral, `[TOOL_CALLS]f[ARGS]{"a": "b`, `[TOOL_CALLS]f[ARGS]{"a": "b`, nil},
	{"mistral no call", ToolMistral, "[INST] is not mine. [TOOL", "[INST] is not mine. [TOOL", nil},

	// No format.
	{"none", ToolNone, `<tool_call>{"name": "f", "arguments": {}}</tool_call>`, `<tool_call>{"name": "f", "arguments": {}}</tool_call>`, nil},
}

var generatedID = regexp.MustCompile(`^call_[A-Za-z0-9]{24}$`)
var mistralGeneratedID = regexp.MustCompile(`^[A-Za-z0-9]{9}$`)

func checkCalls(t *testing.T, f ToolFormat, got []ToolCall, want []wantCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d calls %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.Arguments != w.args || g.Type != "function" {
			t.Errorf("call %d = %+v, want name %q args %s", i, g, w.name, w.args)
		}
		re := generatedID
		if f == ToolMistral {
			re = mistralGeneratedID
		}
		if w.id != "" && g.ID != w.id || w.id == "" && !re.MatchString(g.ID) {
			t.Errorf("call %d id %q, want %q (empty: generated)", i, g.ID, w.id)
		}
	}
}

func TestParseToolCalls(t *testing.T) {
	for _, tc := range toolCallCases {
		t.Run(tc.name, func(t *testing.T) {
			content, calls := ParseToolCalls(tc.f, tc.text)
			if content != tc.content {
				t.Errorf("content = %q, want %q", content, tc.content)
			}
			checkCalls(t, tc.f, calls, tc.calls)
		})
	}
}

func TestToolStreamChunks(t *testing.T) {
	for _, tc := range toolCallCases {
		for _, n := range []int{1, 2, 3, 7} {
			t.Run(tc.name+"/"+string(rune('0'+n)), func(t *testing.T) {
				content, calls := streamChunks(tc.f, tc.text, n)
				if content != tc.content {
					t.Errorf("content = %q, want %q", content, tc.content)
				}
				checkCalls(t, tc.f, calls, tc.calls)
			})
		}
	}
}

// streamChunks feeds text to a ToolStream in pieces of n bytes.
func streamChunks(f ToolFormat, text string, n int) (string, []ToolCall) {
	s := NewToolStream(f)
	var b strings.Builder
	for len(text) > 0 {
		k := min(n, len(text))
		b.WriteString(s.Push(text[:k]))
		text = text[k:]
	}
	tail, calls := s.Finish()
	return b.String() + tail, calls
}

// TestToolStreamShowsContentEarly checks that plain text is not held back
// longer than needed.
func TestToolStreamShowsContentEarly(t *testing.T) {
	for _, tc := range []struct {
		f      ToolFormat
		pushes []string
		shown  []string
	}{
		{ToolHermes, []string{"Hello", " wor", "ld <tool", "_call>{\"name\"", ": \"f\"}</tool_call>"}, []string{"Hello", " wor", "ld", "", ""}},
		{ToolHermes, []string{"a <tool", "box> b"}, []string{"a", " <toolbox> b"}},
		{ToolMistral, []string{"x [TOOL_", "CALLS]f[ARGS]{}"}, []string{"x", ""}},
		{ToolLlama3, []string{"Sure", ", here <|python", "_tag|>{"}, []string{"Sure", ", here", ""}},
		{ToolLlama3, []string{"  {\"a\"", ": 1} no"}, []string{"", "  {\"a\": 1} no"}},
		{ToolNone, []string{"<tool_call>", " x "}, []string{"<tool_call>", " x "}},
	} {
		s := NewToolStream(tc.f)
		for i, p := range tc.pushes {
			if got := s.Push(p); got != tc.shown[i] {
				t.Errorf("%v %q: push %d shows %q, want %q", tc.f, tc.pushes, i, got, tc.shown[i])
			}
		}
	}
}

func TestToolFormatString(t *testing.T) {
	for f, want := range map[ToolFormat]string{ToolNone: "none", ToolHermes: "hermes", ToolLlama3: "llama3", ToolMistral: "mistral", 9: "ToolFormat(9)"} {
		if got := f.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(f), got, want)
		}
	}
}

func TestDetectToolFormatSnippets(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want ToolFormat
	}{
		{"{{- '<tool_call>\\n' + tool_call.function|tojson + '\\n</tool_call>' }}", ToolHermes},
		{"{{- '<|python_tag|>' + tool_call.name }}", ToolLlama3},
		{"<|start_header_id|>user{{ '\"parameters\": ' }}", ToolLlama3},
		{"{{- '[TOOL_CALLS][' }}", ToolMistral},
		{"{{- '[TOOL_CALLS]' + name + '[ARGS]' + args }}", ToolMistral},
		{"<tool_call>\n<function={{ name }}>", ToolNone},
		{"{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}", ToolNone},
		{"", ToolNone},
	} {
		if got := DetectToolFormat(tc.src); got != tc.want {
			t.Errorf("DetectToolFormat(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

// TestDetectToolFormatTemplates checks the formats of the reference
// templates: the ones named below exactly, every other one must at least
// not claim a format its syntax is not.
func TestDetectToolFormatTemplates(t *testing.T) {
	dir := refdata.Path(t, "templates")
	want := map[string]ToolFormat{
		"Qwen-Qwen2.5-7B-Instruct.jinja":                           ToolHermes,
		"Qwen-Qwen3-0.6B.jinja":                                    ToolHermes,
		"Qwen-QwQ-32B.jinja":                                       ToolHermes,
		"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja":      ToolHermes,
		"NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja":        ToolHermes,
		"ibm-granite-granite-4.0.jinja":                            ToolHermes,
		"meta-llama-Llama-3.1-8B-Instruct.jinja":                   ToolLlama3,
		"meta-llama-Llama-3.2-3B-Instruct.jinja":                   ToolLlama3,
		"mistralai-Mistral-Nemo-Instruct-2407.jinja":               ToolMistral,
		"mistralai-Ministral-3-14B-Reasoning-2512.jinja":           ToolMistral,
		"unsloth-mistral-Devstral-Small-2507.jinja":                ToolMistral,
		"Qwen3.5-4B.jinja":                                         ToolNone, // XML <function=...> calls
		"NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja":                ToolNone,
		"poolside-Laguna-XS.2.jinja":                               ToolNone, // <arg_key> calls
		"meetkai-functionary-medium-v3.1.jinja":                    ToolNone,
		"fireworks-ai-llama-3-firefunction-v2.jinja":               ToolNone,
		"google-gemma-2-2b-it.jinja":                               ToolNone,
		"lcpptest-mistralai-Mistral-7B-Instruct-v0.2-pre-v1.jinja": ToolNone,
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no templates in %s", dir)
	}
	seen := 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		got := DetectToolFormat(string(src))
		if w, ok := want[name]; ok {
			seen++
			if got != w {
				t.Errorf("%s: %v, want %v", name, got, w)
			}
		}
		t.Logf("%s: %v", name, got)
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d named templates", seen, len(want))
	}
}

// FuzzToolStream checks that streaming in any chunk size gives what the
// whole-text parse gives, and that no input panics.
func FuzzToolStream(f *testing.F) {
	for _, tc := range toolCallCases {
		f.Add(uint8(tc.f), tc.text, uint8(1))
		f.Add(uint8(tc.f), tc.text, uint8(5))
	}
	f.Add(uint8(ToolHermes), "<tool_call><tool_call>{}</tool_call></tool_call>", uint8(2))
	f.Add(uint8(ToolMistral), "[TOOL_CALLS]f[CALL_ID][CALL_ID]x[ARGS]{}", uint8(3))
	f.Add(uint8(ToolLlama3), "{\"name\":\"f\",\"parameters\":{}}<|python_tag|>{", uint8(4))
	f.Fuzz(func(t *testing.T, format uint8, text string, chunk uint8) {
		tf := ToolFormat(format % 5)
		n := int(chunk%16) + 1
		wc, wcalls := ParseToolCalls(tf, text)
		gc, gcalls := streamChunks(tf, text, n)
		if gc != wc {
			t.Fatalf("%v chunk %d: stream content %q, whole %q", tf, n, gc, wc)
		}
		if len(gcalls) != len(wcalls) {
			t.Fatalf("%v chunk %d: stream %d calls, whole %d", tf, n, len(gcalls), len(wcalls))
		}
		for i := range wcalls {
			g, w := gcalls[i], wcalls[i]
			if g.Name != w.Name || g.Arguments != w.Arguments || g.Type != w.Type || (len(g.ID) != len(w.ID)) {
				t.Fatalf("%v chunk %d: call %d stream %+v, whole %+v", tf, n, i, g, w)
			}
		}
	})
}
