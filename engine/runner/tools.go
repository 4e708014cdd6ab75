package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"saji/engine/chat"
	"saji/engine/sample"
)

// Tool calls: a chat request with tools is rendered with them (or, for a
// template with no tool-call syntax of its own, with the generic format's
// description in the system turn), and its reply is parsed in the
// template's format as it streams: the pieces' Text is the content with
// the calls taken out, and Result.ToolCalls has the calls. tool_choice
// "required" or a named function is enforced by a grammar of the calls
// in the template's format; the generic format's reply is constrained to
// its JSON shape in every case.

// toolPlan is how a request's tools are handled.
type toolPlan struct {
	format chat.ToolFormat
	tools  []chat.Tool
	choice chat.ToolChoice
}

// ToolFormat returns the tool-call format of the model's chat template.
func (m *Model) ToolFormat() chat.ToolFormat {
	if m.tmpl == nil {
		return chat.ToolNone
	}
	return chat.DetectToolFormat(m.tmpl.Source())
}

// toolPlan reads req's tools; a nil plan means the request has none (or
// is not a chat).
func (m *Model) toolPlan(req Request) (*toolPlan, error) {
	if len(req.Tools) == 0 || req.Messages == nil && req.Tokens == nil {
		return nil, nil
	}
	tools, err := chat.ParseTools(req.Tools)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if req.ToolChoice.Name != "" && req.ToolChoice.Allowed(tools) == nil {
		return nil, fmt.Errorf("%w: tool_choice names %q, which is not among the tools", ErrBadRequest, req.ToolChoice.Name)
	}
	p := &toolPlan{format: m.ToolFormat(), tools: tools, choice: req.ToolChoice}
	if p.format == chat.ToolGeneric && req.JSON {
		// The generic reply is JSON already: a response format asked for
		// with the tools is the shape of its response.
		p.choice.ResponseSchema = req.JSONSchema
		if p.choice.ResponseSchema == nil {
			p.choice.ResponseSchema = json.RawMessage(`{"type":"object"}`)
		}
	}
	return p, nil
}

// renderRequest returns the template request of a chat: for the generic
// format the tools are described in the system turn rather than passed
// to the template, whose own tool syntax (if any) the reply is not in.
func (m *Model) renderRequest(req Request, plan *toolPlan) chat.Request {
	r := chat.Request{Messages: req.Messages, Tools: req.Tools, AddGenerationPrompt: true, Extra: templateVars(req)}
	if plan != nil && plan.format == chat.ToolGeneric {
		r.Messages = chat.WithGenericTools(req.Messages, plan.tools, plan.choice, m.caps.SystemRole)
		r.Tools = nil
	}
	return r
}

// stream returns the parser of the reply's calls, or nil when the reply
// is not parsed for calls (no tools, or harmony's, which its reasoning
// splitter parses).
func (p *toolPlan) stream() *chat.ToolStream {
	if p == nil || p.format == chat.ToolNone || p.format == chat.ToolHarmony {
		return nil
	}
	return chat.NewToolStream(p.format, p.tools...)
}

// constrain sets req's grammar to the one that enforces the plan: the
// calls that tool_choice "required" or a named function asks for, in the
// template's format and with each tool's arguments of its schema; and in
// the generic format the reply's JSON shape, always (see
// chat.ToolGrammar). A grammar or a response format asked for as well is
// a bad request, but for the generic format, whose response takes the
// response format's schema (see toolPlan).
func (p *toolPlan) constrain(req *Request) error {
	if p == nil {
		return nil
	}
	g, err := chat.ToolGrammar(p.format, p.tools, p.choice, sample.SchemaRules)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	switch {
	case g == "":
		return nil
	case req.Grammar != "":
		return fmt.Errorf("%w: a grammar and tool calls that must be made together: give one", ErrBadRequest)
	case req.JSON && p.format != chat.ToolGeneric:
		return fmt.Errorf("%w: a JSON format and tool calls that must be made together: give one", ErrBadRequest)
	}
	req.Grammar, req.JSON, req.JSONSchema = g, false, nil
	return nil
}

// runTools is Stream.Run for a reply parsed for tool calls: the text goes
// through s.tools on its way to emit, and at the end the text it held
// back that is content comes in a last piece, and its calls in the
// result.
func (s *Stream) runTools(emit func(Piece) error) (Result, error) {
	res, err := s.m.run(s.ctx, s.cancel, s.events, s.stopper, s.split, s.prompt, func(p Piece) error {
		p.Text = s.tools.Push(p.Text)
		if p.Text == "" && p.Reasoning == "" && len(p.Tokens) == 0 {
			return nil
		}
		return emit(p)
	})
	if err != nil {
		return res, err
	}
	content, calls := s.tools.Finish()
	res.ToolCalls = append(res.ToolCalls, calls...)
	if content != "" {
		if err := emit(Piece{Text: content}); err != nil {
			return res, fmt.Errorf("runner: the client went away: %w (%w)", context.Canceled, err)
		}
	}
	return res, nil
}
