package server

import (
	"encoding/json"
	"fmt"
	"net/http"

	"saji/engine/runner"
)

// The thinking controls of the dialects. The runner splits a chat reply's
// reasoning from its answer wherever the model's template has a reasoning
// format; the dialects say how the client turns thinking on or off, and
// where the reasoning goes in their answers (OpenAI's reasoning_content,
// Ollama's thinking).

// oaiThinking holds the thinking controls of an OpenAI chat request, as
// llama-server and vLLM take them.
type oaiThinking struct {
	// ReasoningEffort is OpenAI's: "none" turns thinking off, the others
	// are the template's reasoning_effort.
	ReasoningEffort *string `json:"reasoning_effort"`
	// ChatTemplateKwargs are extra template variables (llama-server,
	// vLLM): enable_thinking among them turns thinking on or off.
	ChatTemplateKwargs json.RawMessage `json:"chat_template_kwargs"`
	// ReasoningFormat is llama-server's: "none" leaves the reasoning in
	// the content as the model writes it; "auto", "deepseek" (and
	// "deepseek-legacy", which Saji treats alike) separate it.
	ReasoningFormat string `json:"reasoning_format"`
}

// apply sets g's thinking controls from t: the reasoning is separated
// unless reasoning_format is "none", as llama-server's default "auto"
// does.
func (t *oaiThinking) apply(g *runner.Request) error {
	bad := func(param, format string, args ...any) error {
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, msg: fmt.Sprintf(format, args...)}
	}
	switch t.ReasoningFormat {
	case "", "auto", "deepseek", "deepseek-legacy":
	case "none":
		g.RawReasoning = true
	default:
		return bad("reasoning_format", "reasoning_format %q: none, auto or deepseek", t.ReasoningFormat)
	}
	if t.ReasoningEffort != nil {
		switch e := *t.ReasoningEffort; e {
		case "none":
			off := false
			g.Think = &off
		case "minimal":
			g.ReasoningEffort = "low" // the least the templates know
		case "low", "medium", "high":
			g.ReasoningEffort = e
		default:
			return bad("reasoning_effort", "reasoning_effort %q: none, minimal, low, medium or high", e)
		}
	}
	if !present(t.ChatTemplateKwargs) {
		return nil
	}
	var kwargs map[string]json.RawMessage
	if err := json.Unmarshal(t.ChatTemplateKwargs, &kwargs); err != nil {
		return bad("chat_template_kwargs", "chat_template_kwargs must be an object of template variables")
	}
	if v, ok := kwargs["enable_thinking"]; ok {
		var on bool
		if json.Unmarshal(v, &on) != nil {
			return bad("chat_template_kwargs", "chat_template_kwargs.enable_thinking must be true or false, not %s", v)
		}
	}
	if g.TemplateExtra == nil {
		g.TemplateExtra = make(map[string]any, len(kwargs))
	}
	for k, v := range kwargs {
		g.TemplateExtra[k] = v
	}
	return nil
}

// ollamaThink applies Ollama's think field (true, false, or a level:
// "low", "medium", "high", "max") to g for model m, requested as name,
// as Ollama's server
// does: a model that thinks thinks unless told not to (think absent is
// true) and its reasoning comes back as thinking; think true on a model
// that does not think is refused; think false on a model whose template
// can turn thinking off (enable_thinking) leaves the reply as the model
// writes it, while one that cannot (gpt-oss, the DeepSeek-R1 distills)
// still has its reasoning separated. A level is the template's
// reasoning_effort, "max" being "high" (gpt-oss knows no more).
func ollamaThink(raw json.RawMessage, name string, m *runner.Model, g *runner.Request) error {
	thinks := m.Caps().Thinking
	on, level, set := thinks, "", false
	if present(raw) {
		set = true
		var s string
		switch {
		case json.Unmarshal(raw, &on) == nil:
		case json.Unmarshal(raw, &s) == nil:
			switch s {
			case "low", "medium", "high":
				on, level = true, s
			case "max":
				on, level = true, "high"
			default:
				return badRequest("invalid think value: %q (must be \"high\", \"medium\", \"low\", \"max\", true, or false)", s)
			}
		default:
			return badRequest("think must be a boolean or string (\"high\", \"medium\", \"low\", \"max\", true, or false)")
		}
	}
	switch {
	case on && !thinks && set:
		return badRequest("%q does not support thinking", name)
	case !thinks:
		return nil
	}
	g.Think, g.ReasoningEffort = &on, level
	g.RawReasoning = !on && m.Caps().EnableThinking
	return nil
}
