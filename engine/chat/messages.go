package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"saji/engine/chat/jinja"
	"saji/engine/imagefile"
)

// Message is one chat message in the OpenAI shape chat templates expect.
type Message struct {
	Role string
	// Content is the message text. It is used when Parts is nil and
	// NullContent is false.
	Content string
	// Parts, when non-nil, makes the content a list of parts
	// ([{'type': 'text', 'text': ...}, ...]) instead of a string.
	Parts []ContentPart
	// NullContent makes the content None (JSON null), as OpenAI clients
	// send for assistant turns that only call tools.
	NullContent bool
	// OmitContent leaves the content key out of the message entirely.
	OmitContent bool
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []ToolCall
	// ToolCallID and Name identify the call a tool message answers.
	ToolCallID string
	Name       string
	// ReasoningContent is an assistant turn's separate reasoning text.
	ReasoningContent string
}

// ContentPart is one element of a list content.
type ContentPart struct {
	Type string // "text", "image", ...
	Text string
	// Image is an "image" part's picture (nil for other parts).
	Image *imagefile.Image
}

// ToolCall is one function call of an assistant message.
type ToolCall struct {
	ID   string
	Type string // "function" when empty
	Name string
	// Arguments is the call's arguments: a JSON object as a
	// json.RawMessage (its keys keep their order; text that is not JSON
	// passes as a string) or a map[string]any, or a string holding JSON
	// text (the OpenAI wire format), which templates see as a string.
	Arguments any
}

// Request holds everything a chat template is rendered with, as Hugging
// Face's apply_chat_template passes it.
type Request struct {
	Messages []Message
	// Tools are the tool definitions (JSON schema objects:
	// json.RawMessage values keep their key order, map[string]any values
	// are sorted). Nil passes tools=None.
	Tools []any
	// Documents are retrieval documents; nil passes documents=None.
	Documents []any
	// AddGenerationPrompt appends the start of an assistant turn.
	AddGenerationPrompt bool
	// BOSToken and EOSToken are the model's special tokens; an empty one
	// is not passed (undefined in the template), as HF does when the
	// tokenizer has none.
	BOSToken, EOSToken string
	// Extra are additional template variables (enable_thinking,
	// reasoning_effort, ...).
	Extra map[string]any
}

// Vars builds the template variables of r, in the order HF passes them:
// messages, tools, documents, add_generation_prompt, bos_token,
// eos_token, then extra keyword arguments (sorted by name).
func (r Request) Vars() (Vars, error) { return r.vars(false) }

// vars is Vars, with each assistant turn's reasoning also passed as
// thinking when harmony (and its content left out when it calls tools), as
// llama.cpp passes them to gpt-oss's template.
func (r Request) vars(harmony bool) (Vars, error) {
	d := jinja.NewDict()
	msgs := make([]jinja.Value, len(r.Messages))
	for i, m := range r.Messages {
		v, err := m.value(harmony)
		if err != nil {
			return Vars{}, fmt.Errorf("chat: message %d: %w", i, err)
		}
		msgs[i] = v
	}
	d.Set("messages", &jinja.List{Items: msgs})
	for _, kv := range []struct {
		name string
		list []any
	}{{"tools", r.Tools}, {"documents", r.Documents}} {
		if kv.list == nil {
			d.Set(kv.name, nil)
			continue
		}
		v, err := jinja.FromGo(kv.list)
		if err != nil {
			return Vars{}, fmt.Errorf("chat: %s: %w", kv.name, err)
		}
		d.Set(kv.name, v)
	}
	d.Set("add_generation_prompt", r.AddGenerationPrompt)
	if r.BOSToken != "" {
		d.Set("bos_token", r.BOSToken)
	}
	if r.EOSToken != "" {
		d.Set("eos_token", r.EOSToken)
	}
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := jinja.FromGo(r.Extra[k])
		if err != nil {
			return Vars{}, fmt.Errorf("chat: %s: %w", k, err)
		}
		d.Set(k, v)
	}
	return Vars{d}, nil
}

// value converts a message to the dict a template sees; with thinking, its
// reasoning is also its thinking, and a tool-calling turn with reasoning
// has no content (llama.cpp's adjustment for gpt-oss's template).
func (m Message) value(thinking bool) (*jinja.Dict, error) {
	thinking = thinking && m.ReasoningContent != ""
	d := jinja.NewDict()
	d.Set("role", m.Role)
	if m.ToolCallID != "" {
		d.Set("tool_call_id", m.ToolCallID)
	}
	if m.Name != "" {
		d.Set("name", m.Name)
	}
	switch {
	case m.OmitContent, thinking && len(m.ToolCalls) > 0:
	case m.Parts != nil:
		parts := make([]jinja.Value, len(m.Parts))
		for i, p := range m.Parts {
			pd := jinja.NewDict()
			pd.Set("type", p.Type)
			if p.Type == "text" || p.Text != "" {
				pd.Set("text", p.Text)
			}
			parts[i] = pd
		}
		d.Set("content", &jinja.List{Items: parts})
	case m.NullContent:
		d.Set("content", nil)
	default:
		d.Set("content", m.Content)
	}
	if m.ReasoningContent != "" {
		d.Set("reasoning_content", m.ReasoningContent)
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]jinja.Value, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			c := jinja.NewDict()
			if tc.ID != "" {
				c.Set("id", tc.ID)
			}
			typ := tc.Type
			if typ == "" {
				typ = "function"
			}
			c.Set("type", typ)
			fn := jinja.NewDict()
			fn.Set("name", tc.Name)
			args, err := arguments(tc.Arguments)
			if err != nil {
				return nil, fmt.Errorf("tool call %d arguments: %w", i, err)
			}
			if args == nil {
				args = jinja.NewDict()
			}
			fn.Set("arguments", args)
			c.Set("function", fn)
			calls[i] = c
		}
		d.Set("tool_calls", &jinja.List{Items: calls})
	}
	if thinking {
		d.Set("thinking", m.ReasoningContent)
	}
	return d, nil
}

// arguments converts a tool call's arguments for a template. JSON text in a
// json.RawMessage that does not decode passes as a string, as a client
// wrote it.
func arguments(a any) (jinja.Value, error) {
	if raw, ok := a.(json.RawMessage); ok {
		v, err := jinja.DecodeJSON(raw)
		if err != nil {
			return string(raw), nil
		}
		return v, nil
	}
	return jinja.FromGo(a)
}

// RenderMessages renders the template for a conversation.
func (t *Template) RenderMessages(ctx context.Context, r Request) (string, error) {
	vars, err := r.vars(t.Harmony())
	if err != nil {
		return "", err
	}
	return t.Render(ctx, vars)
}

// ChatMLSource is the fallback template for models that carry none:
// ChatML, "<|im_start|>role\ncontent<|im_end|>\n" per message and
// "<|im_start|>assistant\n" as the generation prompt. List contents are
// joined from their text parts.
const ChatMLSource = `{%- for message in messages -%}
<|im_start|>{{ message.role }}
{% if message.content is string %}{{ message.content }}{% elif message.content is iterable %}{% for part in message.content %}{% if part.text is defined %}{{ part.text }}{% endif %}{% endfor %}{% endif %}<|im_end|>
{% endfor -%}
{%- if add_generation_prompt -%}
<|im_start|>assistant
{% endif -%}`

var chatML = sync.OnceValue(func() *Template {
	t, err := Parse(ChatMLSource)
	if err != nil {
		panic(err) // the source is a constant
	}
	return t
})

// ChatML returns the parsed ChatML fallback template.
func ChatML() *Template { return chatML() }
