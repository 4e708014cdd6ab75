package chat

import (
	"context"
	"strings"

	"saji/engine/chat/jinja"
)

// Caps are what a chat template can express, found by rendering probe
// conversations and looking for unique markers in the output.
type Caps struct {
	// SystemRole: a system message renders (no error) and its text
	// appears in the prompt.
	SystemRole bool
	// Tools: tool definitions passed in tools appear in the prompt.
	Tools bool
	// ToolCalls: an assistant message's tool call (name) appears.
	ToolCalls bool
	// ParallelToolCalls: two tool calls in one assistant message both
	// appear.
	ParallelToolCalls bool
	// ToolResults: a tool message's content appears.
	ToolResults bool
	// ContentParts: list contents ([{type: text, text}]) render.
	ContentParts bool
	// Reasoning: an assistant message's reasoning_content appears (for
	// the latest turn).
	Reasoning bool
	// EnableThinking: the template reads enable_thinking, and the prompt
	// changes when it is false.
	EnableThinking bool
	// Thinking: the template has a reasoning format (Template.Reasoning),
	// so that its model's replies are split into reasoning and answer.
	Thinking bool
}

// probe markers: unlikely to occur in any template.
const (
	probeSystem    = "SAJIPROBESYSTEM7Q"
	probeUser      = "SAJIPROBEUSER3K"
	probeTool      = "saji_probe_tool_x9"
	probeTool2     = "saji_probe_tool_y4"
	probeResult    = "SAJIPROBERESULT5M"
	probeReasoning = "SAJIPROBEREASONING2W"
	probeAnswer    = "SAJIPROBEANSWER8D"
	probePart      = "SAJIPROBEPART6T"
)

// Capabilities probes t by rendering small conversations. Probes that
// fail to render count as unsupported; the error is returned only when
// even a plain user message does not render.
func Capabilities(ctx context.Context, t *Template) (Caps, error) {
	c := Caps{Thinking: !t.Reasoning().None()}
	render := func(r Request) (string, bool) {
		r.BOSToken, r.EOSToken = "<s>", "</s>"
		out, err := t.RenderMessages(ctx, r)
		return out, err == nil
	}
	user := Message{Role: "user", Content: probeUser}
	if _, err := t.RenderMessages(ctx, Request{Messages: []Message{user}, AddGenerationPrompt: true, BOSToken: "<s>", EOSToken: "</s>"}); err != nil {
		return c, err
	}
	if out, ok := render(Request{Messages: []Message{{Role: "system", Content: probeSystem}, user}, AddGenerationPrompt: true}); ok {
		c.SystemRole = strings.Contains(out, probeSystem)
	}
	tool := func(name string) any {
		fn := jinja.NewDict()
		fn.Set("name", name)
		fn.Set("description", "Probe tool.")
		params := jinja.NewDict()
		params.Set("type", "object")
		props := jinja.NewDict()
		arg := jinja.NewDict()
		arg.Set("type", "string")
		arg.Set("description", "An argument.")
		props.Set("arg", arg)
		params.Set("properties", props)
		params.Set("required", &jinja.List{Items: []jinja.Value{"arg"}})
		fn.Set("parameters", params)
		d := jinja.NewDict()
		d.Set("type", "function")
		d.Set("function", fn)
		return d
	}
	tools := []any{tool(probeTool), tool(probeTool2)}
	if out, ok := render(Request{Messages: []Message{user}, Tools: tools, AddGenerationPrompt: true}); ok {
		c.Tools = strings.Contains(out, probeTool)
	}
	args := func() *jinja.Dict {
		d := jinja.NewDict()
		d.Set("arg", "value")
		return d
	}
	call := func(id, name string, a any) ToolCall {
		return ToolCall{ID: id, Name: name, Arguments: a}
	}
	// Tool calls: arguments as an object first, then as JSON text.
	for _, a := range []func() any{func() any { return args() }, func() any { return `{"arg": "value"}` }} {
		one := []Message{user, {Role: "assistant", Content: "", ToolCalls: []ToolCall{call("call00001", probeTool, a())}},
			{Role: "tool", ToolCallID: "call00001", Name: probeTool, Content: probeResult}}
		if out, ok := render(Request{Messages: one, Tools: tools, AddGenerationPrompt: true}); ok && strings.Contains(out, probeTool) {
			// The tool name also appears in the tool list; require it
			// twice so the call itself is seen.
			if strings.Count(out, probeTool) >= 2 || !c.Tools {
				c.ToolCalls = true
				c.ToolResults = strings.Contains(out, probeResult)
			}
		}
		two := []Message{user, {Role: "assistant", Content: "", ToolCalls: []ToolCall{
			call("call00001", probeTool, a()), call("call00002", probeTool2, a())}},
			{Role: "tool", ToolCallID: "call00001", Name: probeTool, Content: probeResult},
			{Role: "tool", ToolCallID: "call00002", Name: probeTool2, Content: probeResult}}
		if out, ok := render(Request{Messages: two, Tools: tools, AddGenerationPrompt: true}); ok {
			need := 1
			if c.Tools {
				need = 2
			}
			if strings.Count(out, probeTool) >= need && strings.Count(out, probeTool2) >= need {
				c.ParallelToolCalls = true
			}
		}
		if c.ToolCalls {
			break
		}
	}
	parts := Message{Role: "user", Parts: []ContentPart{{Type: "text", Text: probePart}}}
	if out, ok := render(Request{Messages: []Message{parts}, AddGenerationPrompt: true}); ok {
		// A template that prints the list (repr or JSON) does not
		// understand parts.
		c.ContentParts = strings.Contains(out, probePart) &&
			!strings.Contains(out, "'text': '"+probePart) && !strings.Contains(out, `"text": "`+probePart)
	}
	reasoning := []Message{user, {Role: "assistant", Content: probeAnswer, ReasoningContent: probeReasoning}}
	if out, ok := render(Request{Messages: reasoning}); ok {
		c.Reasoning = strings.Contains(out, probeReasoning)
	}
	if strings.Contains(t.Source(), "enable_thinking") {
		on, ok1 := render(Request{Messages: []Message{user}, AddGenerationPrompt: true, Extra: map[string]any{"enable_thinking": true}})
		off, ok2 := render(Request{Messages: []Message{user}, AddGenerationPrompt: true, Extra: map[string]any{"enable_thinking": false}})
		c.EnableThinking = ok1 && ok2 && on != off
	}
	return c, nil
}
