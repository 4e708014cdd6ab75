// Package chat renders model chat templates: the Jinja2 programs that GGUF
// files carry under tokenizer.chat_template and that turn a conversation
// into the prompt string a model was trained on.
//
// The package holds its own Jinja2 interpreter (lexer, parser to an AST,
// tree-walking evaluator) that reproduces what Hugging Face transformers'
// apply_chat_template renders, byte for byte: the ImmutableSandboxedEnvironment
// with trim_blocks and lstrip_blocks, loop controls, the {% generation %} tag,
// HF's tojson, raise_exception and strftime_now globals, and Python's value
// semantics (None/True/False printing, repr of lists and dicts, order-preserving
// dicts, Jinja's Undefined, Markup from |safe, one-shot generators from
// |map and |select).
//
// Templates come from downloaded files, so rendering is sandboxed: no file
// or network access (include, import and extends are rejected), and every
// render is bounded in loop iterations, recursion depth, output size and
// string size (see Limits), and stops when its context.Context is done.
//
// Typical use:
//
//	t, err := chat.Parse(src)
//	out, err := t.RenderMessages(ctx, chat.Request{Messages: msgs, AddGenerationPrompt: true})
//
// Parse compiles once; a *Template is safe for concurrent use. ChatML is the
// fallback for models without a template, and Capabilities probes a
// template by rendering (system role, tools, tool calls, reasoning).
package chat
