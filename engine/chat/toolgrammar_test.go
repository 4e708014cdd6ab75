package chat

import (
	"errors"
	"strings"
	"testing"
)

// fakeSchemaGrammar stands for sample.SchemaRules: any schema is an
// object with optional space inside.
func fakeSchemaGrammar(schema []byte, prefix string) (string, error) {
	if strings.Contains(string(schema), "$bad") {
		return "", errors.New("bad schema")
	}
	return prefix + "root ::= \"{\" " + prefix + "ws \"}\"\n" + prefix + "ws ::= [ \\t\\n]{0,20} # space\n", nil
}

func TestToolGrammar(t *testing.T) {
	args := "tool0-args-root ::= \"{\" tool0-args-ws \"}\"\ntool0-args-ws ::= [ \\t\\n]{0,20} # space\n"
	for _, tc := range []struct {
		name   string
		f      ToolFormat
		choice ToolChoice
		want   string
	}{
		{"auto is free", ToolHermes, ToolChoice{}, ""},
		{"generic auto is json", ToolGeneric, ToolChoice{},
			"root ::= reply-root\nreply-root ::= \"{\" reply-ws \"}\"\nreply-ws ::= [ \\t\\n]{0,20} # space\n"},
		{"hermes named", ToolHermes, ToolChoice{Name: "special_function"},
			"root ::= \"<tool_call>\\n\" call \"\\n</tool_call>\"\n" + args +
				"call ::= \"{\\\"name\\\": \" \"\\\"special_function\\\"\" \", \\\"arguments\\\": \" tool0-args-root \"}\"\n"},
		{"deepseek v3.1 parallel", ToolDeepSeekV31, ToolChoice{Name: "special_function", Parallel: true},
			"root ::= \"<｜tool▁calls▁begin｜>\" call (\"\\n\" call)* \"<｜tool▁calls▁end｜>\"\n" + args +
				"call ::= \"<｜tool▁call▁begin｜>\" \"special_function\" \"<｜tool▁sep｜>\" tool0-args-root \"<｜tool▁call▁end｜>\"\n"},
		{"qwen3-coder typed parameters", ToolQwen3Coder, ToolChoice{Name: "edit"},
			"root ::= call\n" +
				"tool0-p0 ::= [^<]*\n" +
				"tool0-p1-root ::= \"{\" tool0-p1-ws \"}\"\ntool0-p1-ws ::= [ \\t\\n]{0,20} # space\n" +
				"tool0-p2-root ::= \"{\" tool0-p2-ws \"}\"\ntool0-p2-ws ::= [ \\t\\n]{0,20} # space\n" +
				"call ::= \"<tool_call>\\n<function=edit>\\n\" (\"<parameter=filename>\\n\" tool0-p0 \"\\n</parameter>\\n\")? " +
				"(\"<parameter=lines>\\n\" tool0-p1-root \"\\n</parameter>\\n\")? (\"<parameter=note>\\n\" tool0-p2-root \"\\n</parameter>\\n\")? \"</function>\\n</tool_call>\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ToolGrammar(tc.f, testTools, tc.choice, fakeSchemaGrammar)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("grammar\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	// Every format writes a grammar of every tool.
	for f := ToolHermes; f <= ToolGeneric; f++ {
		g, err := ToolGrammar(f, testTools, ToolChoice{Required: true, Parallel: true}, fakeSchemaGrammar)
		if err != nil {
			t.Errorf("%v: %v", f, err)
			continue
		}
		if !strings.HasPrefix(g, "root ::= ") || f != ToolGeneric && (!strings.Contains(g, "special_function") || !strings.Contains(g, "python")) {
			t.Errorf("%v: grammar\n%s", f, g)
		}
	}
	if _, err := ToolGrammar(ToolHermes, testTools, ToolChoice{Name: "nope"}, fakeSchemaGrammar); err == nil {
		t.Error("a named choice that is not a tool")
	}
	h, err := ToolGrammar(ToolHarmony, testTools, ToolChoice{Name: "python"}, fakeSchemaGrammar)
	if err != nil || !strings.HasPrefix(h, "root ::= (\"<|channel|>analysis<|message|>\" [^<]* \"<|end|><|start|>assistant\")? call\n") ||
		!strings.Contains(h, "call ::= \"<|channel|>commentary to=functions.python <|constrain|>json<|message|>\" tool0-args-root \"<|call|>\"") {
		t.Errorf("harmony: %v\n%s", err, h)
	}
	city := mustTools(`{"type":"function","function":{"name":"w","parameters":{"type":"object","properties":{"city":{"type":"string","maxLength":12}},"required":["city"]}}}`)
	if g, err := ToolGrammar(ToolGLM45, city, ToolChoice{Required: true}, fakeSchemaGrammar); err != nil || !strings.Contains(g, "tool0-p0 ::= [^<]{0,12}\n") ||
		!strings.Contains(g, `"<tool_call>w\n" "<arg_key>city</arg_key>\n<arg_value>" tool0-p0 "</arg_value>\n" "</tool_call>"`) {
		t.Errorf("glm with a bounded string: %v\n%s", err, g)
	}
	bad := mustTools(`{"type":"function","function":{"name":"f","parameters":{"$bad":1}}}`)
	if _, err := ToolGrammar(ToolHermes, bad, ToolChoice{Required: true}, fakeSchemaGrammar); err == nil {
		t.Error("a schema the converter refuses")
	}
}

func TestLit(t *testing.T) {
	if got := lit("a\"b\\c\n\t\x01é"); got != `"a\"b\\c\n\t\x01é"` {
		t.Errorf("lit = %s", got)
	}
}
