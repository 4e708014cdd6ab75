package chat

import (
	"context"
	"errors"

	"saji/engine/chat/jinja"
)

// Options configure a template: the limits of each render and the clock
// strftime_now reads (see jinja.Options).
type Options = jinja.Options

// Template is a parsed chat template. It is immutable and safe for
// concurrent use.
type Template struct {
	t   *jinja.Template
	src string
}

// Parse compiles a template source with default options.
func Parse(src string) (*Template, error) { return ParseWithOptions(src, Options{}) }

// ParseWithOptions compiles a template source.
func ParseWithOptions(src string, opts Options) (*Template, error) {
	t, err := jinja.Parse(src, opts)
	if err != nil {
		return nil, err
	}
	return &Template{t: t, src: src}, nil
}

// Source returns the template text.
func (t *Template) Source() string { return t.src }

// Render renders the template with vars: a map[string]any of plain Go
// values (nil, bools, numbers, strings, slices, maps with string keys,
// json.RawMessage; map keys are sorted, since Go maps have no order), a
// json.RawMessage holding a JSON object (its keys keep their order), or
// Vars. A key that is absent is undefined in the template; a key holding
// nil is defined and none.
//
// Every render has a deadline, Options.Limits.MaxRenderTime (5 s by
// default; see jinja.Limits for all the bounds): the caps probe at load
// and each request alike. A template past it fails with an error that
// matches jinja.ErrLimitExceeded; one whose ctx ends first fails with a
// canceled error wrapping ctx's.
func (t *Template) Render(ctx context.Context, vars any) (string, error) {
	if v, ok := vars.(Vars); ok {
		vars = nil
		if v.d != nil {
			vars = v.d
		}
	}
	return t.t.Render(ctx, vars)
}

// Vars are template variables in the order a template sees them. The zero
// Vars has none.
type Vars struct {
	d *jinja.Dict
}

// DecodeVars decodes a JSON object of template variables, keeping the
// order of its keys.
func DecodeVars(data []byte) (Vars, error) {
	v, err := jinja.DecodeJSON(data)
	if err != nil {
		return Vars{}, err
	}
	d, ok := v.(*jinja.Dict)
	if !ok {
		return Vars{}, errors.New("chat: not a JSON object")
	}
	return Vars{d}, nil
}

// WithTokens returns v with bos_token and eos_token added where v lacks
// them and the token is not empty, just after add_generation_prompt as
// Hugging Face orders them (at the end when v has no
// add_generation_prompt).
func (v Vars) WithTokens(bos, eos string) Vars {
	if v.d == nil {
		v.d = jinja.NewDict()
	}
	var add []string
	if _, ok := v.d.Get("bos_token"); !ok && bos != "" {
		add = append(add, "bos_token")
	}
	if _, ok := v.d.Get("eos_token"); !ok && eos != "" {
		add = append(add, "eos_token")
	}
	if len(add) == 0 {
		return v
	}
	tok := map[string]string{"bos_token": bos, "eos_token": eos}
	out := jinja.NewDict()
	inserted := false
	insert := func() {
		for _, k := range add {
			out.Set(k, tok[k])
		}
		inserted = true
	}
	for i, k := range v.d.Keys() {
		ks, _ := k.(string)
		out.Set(ks, v.d.Values()[i])
		if ks == "add_generation_prompt" {
			insert()
		}
	}
	if !inserted {
		insert()
	}
	return Vars{out}
}
