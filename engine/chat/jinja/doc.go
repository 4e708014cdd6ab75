// Package jinja is a sandboxed Jinja2 interpreter: a lexer, a parser to an
// AST (with constant folding), and a tree-walking evaluator with Python's
// value semantics. It reproduces what Hugging Face transformers'
// apply_chat_template renders, byte for byte: the
// ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks, loop
// controls, the {% generation %} tag, HF's tojson, raise_exception and
// strftime_now globals, Jinja's filters, tests and the str/list/dict
// methods templates call, Python's %-formatting and str.format, and
// Python's value semantics (None/True/False printing, repr of lists and
// dicts, order-preserving dicts, Jinja's Undefined, Markup from |safe,
// one-shot generators from |map and |select).
//
// Templates come from downloaded files, so rendering is sandboxed: no file
// or network access (include, import and extends are rejected). Parsing is
// bounded in source size and syntax-tree depth, and every render in loop
// iterations, recursion depth, output size, string size, the arguments
// that size an allocation, and wall time (a deadline of 5 s by default);
// it also stops when its context.Context is done. Limits documents every
// bound in one place. A hostile template fails with a KindLimit error; a
// panic, which would be a bug, is recovered as a KindInternal error.
//
// The API is small:
//
//	t, err := jinja.Parse(src, jinja.Options{})
//	out, err := t.Render(ctx, map[string]any{"messages": msgs})
//
// Parse compiles once; a *Template is safe for concurrent use. Variables
// are plain Go values (FromGo), JSON text (DecodeJSON, which keeps the
// order of object keys), or values built with NewDict and List. Failures
// are *Error values whose Kind says what Python would have raised.
//
// The package knows nothing of chat: engine/chat builds the variables of
// a conversation and wraps a Template.
package jinja
