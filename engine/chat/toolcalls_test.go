package chat

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

	// Qwen3-Coder XML.
	{"qwen3coder one", ToolQwen3Coder, "<tool_call>\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n</function>\n</tool_call>",
		"", []wantCall{{"", "special_function", `{"arg1":1}`}}},
	{"qwen3coder typed by schema", ToolQwen3Coder, "Editing.\n<tool_call>\n<function=edit>\n<parameter=filename>\n123\n</parameter>\n<parameter=lines>\n[1, 2]\n</parameter>\n<parameter=note>\nnot json\n</parameter>\n</function>\n</tool_call>",
		"Editing.", []wantCall{{"", "edit", `{"filename":"123","lines":[1,2],"note":"not json"}`}}},
	{"qwen3coder multiline code", ToolQwen3Coder, "<tool_call>\n<function=python>\n<parameter=code>\ndef hello():\n    print(\"Hello, world!\")\n\nhello()\n</parameter>\n</function>\n</tool_call>",
		"", []wantCall{{"", "python", `{"code":"def hello():\n    print(\"Hello, world!\")\n\nhello()"}`}}},
	{"qwen3coder parallel", ToolQwen3Coder, "<tool_call>\n<function=a>\n</function>\n</tool_call>\n<tool_call>\n<function=special_function>\n<parameter=arg1>\n2\n</parameter>\n</function>\n</tool_call>",
		"", []wantCall{{"", "a", `{}`}, {"", "special_function", `{"arg1":2}`}}},
	{"qwen3coder unclosed at end", ToolQwen3Coder, "<tool_call>\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n",
		"", []wantCall{{"", "special_function", `{"arg1":1}`}}},
	{"qwen3coder hermes json is content", ToolQwen3Coder, `<tool_call>{"name": "f"}</tool_call>`, `<tool_call>{"name": "f"}</tool_call>`, nil},
	{"qwen3coder bad parameter", ToolQwen3Coder, "<tool_call><function=f><parameter=x>1</function></tool_call>", "<tool_call><function=f><parameter=x>1</function></tool_call>", nil},

	// GLM 4.5.
	{"glm one", ToolGLM45, "<tool_call>special_function\n<arg_key>arg1</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
		"", []wantCall{{"", "special_function", `{"arg1":1}`}}},
	{"glm typed and several", ToolGLM45, "Sure.\n<tool_call>edit\n<arg_key>filename</arg_key>\n<arg_value>42</arg_value>\n<arg_key>opts</arg_key><arg_value>{\"a\": true}</arg_value>\n</tool_call>\n<tool_call>now\n</tool_call>",
		"Sure.", []wantCall{{"", "edit", `{"filename":"42","opts":{"a":true}}`}, {"", "now", `{}`}}},
	{"glm malformed", ToolGLM45, "<tool_call>f\n<arg_key>x</arg_key>oops</tool_call>", "<tool_call>f\n<arg_key>x</arg_key>oops</tool_call>", nil},

	// DeepSeek.
	{"deepseek r1 one", ToolDeepSeekR1, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>special_function\n```json\n{\"arg1\": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		"", []wantCall{{"", "special_function", `{"arg1":1}`}}},
	{"deepseek r1 two with text", ToolDeepSeekR1, "Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>a\n```json\n{}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>b\n```json\n{\"x\": \"```\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		"Checking.", []wantCall{{"", "a", `{}`}, {"", "b", "{\"x\":\"```\"}"}}},
	{"deepseek v3.1 one", ToolDeepSeekV31, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{\"city\": \"XYZCITY\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		"", []wantCall{{"", "get_time", `{"city":"XYZCITY"}`}}},
	{"deepseek v3.1 unclosed", ToolDeepSeekV31, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>", "", []wantCall{{"", "f", `{}`}}},
	{"deepseek malformed", ToolDeepSeekV31, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{oops}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{oops}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", nil},

	// Granite.
	{"granite list", ToolGranite, `<|tool_call|>[{"name": "special_function", "arguments": {"arg1": 1}}, {"name": "b", "arguments": {}}]`,
		"", []wantCall{{"", "special_function", `{"arg1":1}`}, {"", "b", `{}`}}},
	{"granite text before", ToolGranite, `Let me see. <|tool_call|>[{"name": "f", "arguments": {"q": "<|tool_call|>"}}]`, "Let me see.", []wantCall{{"", "f", `{"q":"<|tool_call|>"}`}}},
	{"granite malformed", ToolGranite, `<|tool_call|>[{"name": 1}]`, `<|tool_call|>[{"name": 1}]`, nil},

	// Command R7B.
	{"command-r7b one", ToolCommandR7B, "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"special_function\", \"parameters\": {\"arg1\": 1}}\n]<|END_ACTION|>",
		"", []wantCall{{"0", "special_function", `{"arg1":1}`}}},
	{"command-r7b two", ToolCommandR7B, "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"a\", \"parameters\": {}}, {\"tool_call_id\": \"1\", \"tool_name\": \"b\", \"parameters\": {\"s\": \"]<|END_ACTION|\"}}]<|END_ACTION|>",
		"", []wantCall{{"0", "a", `{}`}, {"1", "b", `{"s":"]<|END_ACTION|"}`}}},
	{"command-r7b response", ToolCommandR7B, "<|START_RESPONSE|>Hello, <|world|>!<|END_RESPONSE|>", "Hello, <|world|>!", nil},
	{"command-r7b response cut", ToolCommandR7B, "<|START_RESPONSE|>Hi <|END_RESP", "Hi <|END_RESP", nil},
	{"command-r7b malformed", ToolCommandR7B, "<|START_ACTION|>[{\"tool_name\": 3}]<|END_ACTION|>", "<|START_ACTION|>[{\"tool_name\": 3}]<|END_ACTION|>", nil},

	// Functionary v3.1.
	{"functionary v3.1 one", ToolFunctionaryV31, `<function=special_function>{"arg1": 1}</function>`, "", []wantCall{{"", "special_function", `{"arg1":1}`}}},
	{"functionary v3.1 two with text", ToolFunctionaryV31, "I'll look.\n<function=a>{}</function><function=b>{\"k\": [1]}</function>", "I'll look.", []wantCall{{"", "a", `{}`}, {"", "b", `{"k":[1]}`}}},
	{"functionary v3.1 not json", ToolFunctionaryV31, `<function=a>call me</function>`, `<function=a>call me</function>`, nil},

	// Functionary v3.2.
	{"functionary v3.2 content", ToolFunctionaryV32, "all\nHello, world!\nWhat's up?", "Hello, world!\nWhat's up?", nil},
	{"functionary v3.2 call", ToolFunctionaryV32, "special_function\n{\"arg1\": 1}", "", []wantCall{{"", "special_function", `{"arg1":1}`}}},
	{"functionary v3.2 content then calls", ToolFunctionaryV32, "all\nLet me check.>>>a\n{}\n>>>b\n{\"x\": \">>>\"}", "Let me check.", []wantCall{{"", "a", `{}`}, {"", "b", `{"x":">>>"}`}}},
	{"functionary v3.2 plain", ToolFunctionaryV32, "Hello there >>>", "Hello there >>>", nil},
	{"functionary v3.2 bad args", ToolFunctionaryV32, "all\nok>>>f\nnope", "ok>>>f\nnope", nil},

	// Generic.
	{"generic calls", ToolGeneric, `{"tool_calls": [{"name": "special_function", "arguments": {"arg1": 1}}, {"name": "b", "arguments": {}}]}`,
		"", []wantCall{{"", "special_function", `{"arg1":1}`}, {"", "b", `{}`}}},
	{"generic single call", ToolGeneric, `{"tool_call": {"name": "f", "arguments": {"q": "x"}}}`, "", []wantCall{{"", "f", `{"q":"x"}`}}},
	{"generic response", ToolGeneric, ` {"response": "Hello, \"world\"!"}`, `Hello, "world"!`, nil},
	{"generic response escapes", ToolGeneric, `{"response": "a\nb \u00e9 \ud83d\ude00 \"q\" \\ \/"}`, "a\nb é 😀 \"q\" \\ /", nil},
	{"generic response cut", ToolGeneric, `{"response": "Hello, wor`, "Hello, wor", nil},
	{"generic response cut in an escape", ToolGeneric, `{"response": "ab\u00`, "ab", nil},
	{"generic response bad escape", ToolGeneric, `{"response": "ab\x cd"}`, "ab", nil},
	{"generic response then calls", ToolGeneric, `{"response": "ok", "tool_calls": [{"name": "f", "arguments": {}}]}`, "ok", []wantCall{{"", "f", `{}`}}},
	{"generic calls then response", ToolGeneric, `{"tool_calls": [{"name": "f", "arguments": {}}], "response": "ok"}`, "ok", []wantCall{{"", "f", `{}`}}},
	{"generic not json", ToolGeneric, "Plain words.", "Plain words.", nil},
	{"generic other json", ToolGeneric, `{"answer": 42}`, `{"answer": 42}`, nil},

	// No format.
	{"none", ToolNone, `<tool_call>{"name": "f", "arguments": {}}</tool_call>`, `<tool_call>{"name": "f", "arguments": {}}</tool_call>`, nil},
}

// testTools are the tools the parse cases pass (their schemas type the XML
// formats' values).
var testTools = mustTools(
	`{"type": "function", "function": {"name": "special_function", "parameters": {"type": "object", "properties": {"arg1": {"type": "integer"}}, "required": ["arg1"]}}}`,
	`{"type": "function", "function": {"name": "edit", "parameters": {"type": "object", "properties": {"filename": {"type": "string"}, "lines": {"type": "array"}, "note": {"type": ["string", "null"]}}}}}`,
	`{"type": "function", "function": {"name": "python", "description": "Runs code.", "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}}}`,
)

// mustTools parses tool definitions for tests.
func mustTools(defs ...string) []Tool {
	var raw []any
	for _, d := range defs {
		raw = append(raw, json.RawMessage(d))
	}
	tools, err := ParseTools(raw)
	if err != nil {
		panic(err)
	}
	return tools
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
			content, calls := ParseToolCalls(tc.f, tc.text, testTools...)
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
	s := NewToolStream(f, testTools...)
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
		{ToolQwen3Coder, []string{"Hi <tool", "_call>\n<function=f>", "</function></tool_call>"}, []string{"Hi", "", ""}},
		{ToolDeepSeekV31, []string{"Hm. <｜tool▁calls", "▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}"}, []string{"Hm.", ""}},
		{ToolFunctionaryV32, []string{"al", "l\nHello", " >>", "> there"}, []string{"", "Hello", "", " >>> there"}},
		{ToolFunctionaryV32, []string{"Hello", " world"}, []string{"", "Hello world"}}, // "Hello" might be a name
		{ToolGeneric, []string{`{"response": `, `"x`, `y\u00`, `e9z"}`}, []string{"", "x", "y", "éz"}},
		{ToolGeneric, []string{`{"tool_calls": `, `[]}`}, []string{"", ""}},
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
	for f, want := range map[ToolFormat]string{ToolNone: "none", ToolHermes: "hermes", ToolLlama3: "llama3", ToolMistral: "mistral", ToolQwen3Coder: "qwen3-coder", ToolGeneric: "generic", 99: "ToolFormat(99)"} {
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
		{"<tool_call>\n<function={{ name }}>\n<parameter={{ k }}>", ToolQwen3Coder},
		{"<tool_call>{{ name }}<arg_key>{{ k }}</arg_key>", ToolGLM45},
		{"{{ '<function=' + name + '>' + args + '</function>' }}", ToolFunctionaryV31},
		{"<|START_ACTION|>[", ToolCommandR7B},
		{"{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}", ToolGeneric},
		{"", ToolGeneric},
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
		"Qwen3.5-4B.jinja":                                         ToolQwen3Coder,
		"NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja":                ToolQwen3Coder,
		"poolside-Laguna-XS.2.jinja":                               ToolGLM45,
		"poolside-Laguna-S-2.1.jinja":                              ToolGLM45,
		"meetkai-functionary-medium-v3.1.jinja":                    ToolFunctionaryV31,
		"meetkai-functionary-medium-v3.2.jinja":                    ToolFunctionaryV32,
		"deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja":           ToolDeepSeekR1,
		"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja":           ToolDeepSeekR1,
		"llama-cpp-deepseek-r1.jinja":                              ToolDeepSeekR1,
		"deepseek-ai-DeepSeek-V3.1.jinja":                          ToolDeepSeekV31,
		"lcpptest-ibm-granite-granite-3.0-8b-instruct.jinja":       ToolGranite,
		"CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja":      ToolCommandR7B,
		"openai-gpt-oss-120b.jinja":                                ToolHarmony,
		"fireworks-ai-llama-3-firefunction-v2.jinja":               ToolGeneric,
		"google-gemma-2-2b-it.jinja":                               ToolGeneric,
		"lcpptest-mistralai-Mistral-7B-Instruct-v0.2-pre-v1.jinja": ToolGeneric,
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
	f.Add(uint8(ToolGeneric), `{"response": "\ud83d\ude00\ud83d", "response": "b"}`, uint8(3))
	f.Add(uint8(ToolFunctionaryV32), "f\n{}>>>all\nx>>>g\n{\"a\": [1]}", uint8(2))
	f.Fuzz(func(t *testing.T, format uint8, text string, chunk uint8) {
		tf := ToolFormat(format % uint8(ToolGeneric+1))
		n := int(chunk%16) + 1
		wc, wcalls := ParseToolCalls(tf, text, testTools...)
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

// TestToolCallsRoundTripTemplates renders an assistant turn with two calls
// through the reference templates of each format and parses the calls
// back out of the rendered text: what a model trained on the template
// writes, Saji reads.
func TestToolCallsRoundTripTemplates(t *testing.T) {
	dir := refdata.Path(t, "templates")
	for name, f := range map[string]ToolFormat{
		"Qwen3.5-4B.jinja":                                    ToolQwen3Coder,
		"NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja":           ToolQwen3Coder,
		"poolside-Laguna-XS.2.jinja":                          ToolGLM45,
		"llama-cpp-deepseek-r1.jinja":                         ToolDeepSeekR1,
		"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja":      ToolDeepSeekR1,
		"deepseek-ai-DeepSeek-V3.1.jinja":                     ToolDeepSeekV31,
		"CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja": ToolCommandR7B,
		"meetkai-functionary-medium-v3.1.jinja":               ToolFunctionaryV31,
		"meetkai-functionary-medium-v3.2.jinja":               ToolFunctionaryV32,
		"Qwen-Qwen2.5-7B-Instruct.jinja":                      ToolHermes,
		"mistralai-Mistral-Nemo-Instruct-2407.jinja":          ToolMistral,
	} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if got := DetectToolFormat(string(src)); got != f {
				t.Fatalf("format %v, want %v", got, f)
			}
			tmpl, err := Parse(string(src))
			if err != nil {
				t.Fatal(err)
			}
			calls := []ToolCall{
				{ID: "abcDEF123", Type: "function", Name: "special_function", Arguments: json.RawMessage(`{"arg1": 1}`)},
				{ID: "xyzXYZ789", Type: "function", Name: "edit", Arguments: json.RawMessage(`{"filename": "a.go", "lines": [3, 4]}`)},
			}
			if f == ToolFunctionaryV32 { // its template wants the arguments as JSON text
				for i := range calls {
					calls[i].Arguments = string(calls[i].Arguments.(json.RawMessage))
				}
			}
			out, err := tmpl.RenderMessages(context.Background(), Request{Messages: []Message{
				{Role: "user", Content: "Go."},
				{Role: "assistant", ToolCalls: calls},
				{Role: "tool", Name: "special_function", ToolCallID: "abcDEF123", Content: "ok"},
			}, BOSToken: "<s>", EOSToken: "</s>"})
			if err != nil {
				t.Fatal(err)
			}
			if f == ToolFunctionaryV32 { // the reply starts after the prompt's ">>>"
				const turn = "assistant<|end_header_id|>\n\n>>>"
				if i := strings.Index(out, turn); i >= 0 {
					out = out[i+len(turn):]
				}
			}
			_, got := ParseToolCalls(f, out, testTools...)
			want := []string{`special_function {"arg1":1}`, `edit {"filename":"a.go","lines":[3,4]}`}
			var seen []string
			for _, c := range got {
				seen = append(seen, c.Name+" "+c.Arguments.(string))
			}
			for _, w := range want {
				if !slices.Contains(seen, w) {
					t.Errorf("call %s not parsed from the rendered turn; parsed %q\n%s", w, seen, out)
				}
			}
		})
	}
}
