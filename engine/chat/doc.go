// Package chat renders model chat templates: the Jinja2 programs that GGUF
// files carry under tokenizer.chat_template and that turn a conversation
// into the prompt string a model was trained on.
//
// The package owns the chat layer: a conversation (Request, Message,
// ToolCall) turned into the template variables Hugging Face's
// apply_chat_template passes, in its order; the ChatML fallback for models
// without a template; Capabilities, which probes a template by rendering
// (system role, tools, tool calls, reasoning); the parsing of the tool
// calls a model writes in its replies (ToolFormat, ToolStream), the
// generic JSON format for templates without one (GenericToolSchema,
// WithGenericTools) and the grammars that force a call (ToolGrammar); and
// the splitting of a reply into its answer and its reasoning, whose format
// the template tells (Template.Reasoning, ReasoningFormat, Splitter):
// reasoning between markers (TagSplitter) or harmony's channels
// (gpt-oss: Harmony, ParseHarmony). The Jinja2
// interpreter itself, its values, limits and errors, is engine/chat/jinja;
// callers here pass and get plain Go values.
//
// Typical use:
//
//	t, err := chat.Parse(src)
//	out, err := t.RenderMessages(ctx, chat.Request{Messages: msgs, AddGenerationPrompt: true})
//
// Parse compiles once; a *Template is safe for concurrent use. Rendering
// is sandboxed and bounded (see jinja.Limits) and stops when its
// context.Context is done.
package chat
