package chat

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestGenericToolSchema(t *testing.T) {
	one := testTools[:1]
	args := `{"type":"object","properties":{"arg1":{"type":"integer"}},"required":["arg1"]}`
	call := `{"type":"object","properties":{"name":{"const":"special_function"},"arguments":` + args + `},"required":["name","arguments"]}`
	for _, tc := range []struct {
		name   string
		tools  []Tool
		choice ToolChoice
		want   string
	}{
		{"required one", one, ToolChoice{Required: true},
			`{"properties":{"tool_call":` + call + `},"required":["tool_call"],"type":"object"}`},
		{"named parallel", testTools, ToolChoice{Name: "special_function", Parallel: true},
			`{"properties":{"tool_calls":{"items":` + call + `,"minItems":1,"type":"array"}},"required":["tool_calls"],"type":"object"}`},
		{"auto one", one, ToolChoice{},
			`{"anyOf":[{"properties":{"tool_call":` + call + `},"required":["tool_call"],"type":"object"},` +
				`{"properties":{"response":{"type":"string"}},"required":["response"],"type":"object"}]}`},
		{"auto parallel", one, ToolChoice{Parallel: true},
			`{"anyOf":[{"properties":{"tool_calls":{"items":` + call + `,"minItems":1,"type":"array"}},"required":["tool_calls"],"type":"object"},` +
				`{"properties":{"response":{"type":"string"}},"required":["response"],"type":"object"}]}`},
		{"auto with a response schema", one, ToolChoice{ResponseSchema: []byte(`{"type":"object"}`)},
			`{"anyOf":[{"properties":{"tool_call":` + call + `},"required":["tool_call"],"type":"object"},` +
				`{"properties":{"response":{"type":"object"}},"required":["response"],"type":"object"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(GenericToolSchema(tc.tools, tc.choice)); got != tc.want {
				t.Errorf("schema\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	var s map[string]any
	if err := json.Unmarshal(GenericToolSchema(testTools, ToolChoice{Required: true}), &s); err != nil {
		t.Fatal(err)
	}
	items := s["properties"].(map[string]any)["tool_call"].(map[string]any)["anyOf"].([]any)
	if len(items) != len(testTools) {
		t.Errorf("several tools: %d alternatives, want %d", len(items), len(testTools))
	}
}

func TestWithGenericTools(t *testing.T) {
	user := Message{Role: "user", Content: "Hi"}
	sys := Message{Role: "system", Content: "Be brief.\n"}
	for _, tc := range []struct {
		name       string
		msgs       []Message
		systemRole bool
		roles      string
		where      int // the message that gets the prompt
		prefix     string
	}{
		{"merged into system", []Message{sys, user}, true, "system user", 0, "Be brief.\n\nYou can call"},
		{"new system", []Message{user}, true, "system user", 0, "You can call"},
		{"no system role", []Message{user}, false, "user", 0, "You can call"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := WithGenericTools(tc.msgs, testTools, ToolChoice{}, tc.systemRole)
			var roles []string
			for _, m := range out {
				roles = append(roles, m.Role)
			}
			if strings.Join(roles, " ") != tc.roles {
				t.Errorf("roles %q, want %q", roles, tc.roles)
			}
			if c := out[tc.where].Content; !strings.HasPrefix(c, tc.prefix) || !strings.Contains(c, `"name":"special_function"`) ||
				!strings.Contains(c, `{"response": `) || !strings.Contains(c, `{"tool_call": {"name": "<tool name>"`) {
				t.Errorf("message %d: %q", tc.where, c)
			}
			if tc.msgs[0].Content != sys.Content && tc.msgs[0].Content != user.Content {
				t.Errorf("the caller's messages changed: %q", tc.msgs[0].Content)
			}
		})
	}
	p := GenericToolPrompt(testTools, ToolChoice{Name: "edit", Parallel: true})
	if strings.Contains(p, "special_function") || !strings.Contains(p, `{"tool_calls": [{"name": "edit", "arguments": {<arguments>}}, ...]}`) || strings.Contains(p, "response") {
		t.Errorf("named prompt: %q", p)
	}
}

func TestParseTools(t *testing.T) {
	if _, err := ParseTools([]any{json.RawMessage(`{"type": "function", "function": {}}`)}); err == nil {
		t.Error("a tool without a name parsed")
	}
	if _, err := ParseTools([]any{json.RawMessage(`[1]`)}); err == nil {
		t.Error("a list parsed as a tool")
	}
	tools, err := ParseTools([]any{map[string]any{"type": "function", "function": map[string]any{"name": "f"}}})
	if err != nil || len(tools) != 1 || tools[0].Name != "f" || tools[0].Parameters != nil {
		t.Errorf("map tool: %+v, %v", tools, err)
	}
}
