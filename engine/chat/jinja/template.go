package jinja

import (
	"context"
	"fmt"
	"time"
)

// Limits bound one render so that a hostile template cannot hang or
// exhaust the process. Zero fields take the defaults.
type Limits struct {
	// MaxIterations caps loop iterations plus items materialized from
	// sequences (|list, ranges, string splits), over the whole render.
	// Default 1,000,000.
	MaxIterations int64
	// MaxRecursion caps the depth of macro calls, loops and recursive
	// loop calls. Default 200.
	MaxRecursion int
	// MaxOutputBytes caps the rendered output (and every captured block
	// or macro output). Default 64 MiB.
	MaxOutputBytes int
	// MaxStringBytes caps any one string a template builds (by +, ~, *,
	// join, replace, format, tojson...). Default 64 MiB.
	MaxStringBytes int
	// MaxWorkBytes caps the total bytes of strings built during a render.
	// Default 1 GiB.
	MaxWorkBytes int64
}

// DefaultLimits returns the limits used for zero fields.
func DefaultLimits() Limits {
	return Limits{
		MaxIterations:  1_000_000,
		MaxRecursion:   200,
		MaxOutputBytes: 64 << 20,
		MaxStringBytes: 64 << 20,
		MaxWorkBytes:   1 << 30,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxIterations <= 0 {
		l.MaxIterations = d.MaxIterations
	}
	if l.MaxRecursion <= 0 {
		l.MaxRecursion = d.MaxRecursion
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = d.MaxOutputBytes
	}
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = d.MaxStringBytes
	}
	if l.MaxWorkBytes <= 0 {
		l.MaxWorkBytes = d.MaxWorkBytes
	}
	return l
}

// Options configure a template.
type Options struct {
	// Limits bound each render; zero fields take DefaultLimits().
	Limits Limits
	// Now is the clock strftime_now reads; nil means time.Now.
	Now func() time.Time
}

// Template is a parsed template. It is immutable and safe for concurrent
// use.
type Template struct {
	body []node
	opts Options
}

// Parse compiles a template source. Zero limits in opts take the defaults.
func Parse(src string, opts Options) (*Template, error) {
	body, err := parse(src)
	if err != nil {
		return nil, err
	}
	opts.Limits = opts.Limits.withDefaults()
	return &Template{body: body, opts: opts}, nil
}

// Render renders the template with vars, which is a map[string]any (Go
// values are converted with FromGo; map keys are sorted), a
// json.RawMessage holding a JSON object (keys keep their order) or a *Dict.
// A key that is absent is undefined in the template; a key holding nil is
// defined and none.
func (t *Template) Render(ctx context.Context, vars any) (string, error) {
	var d *Dict
	switch v := vars.(type) {
	case *Dict:
		d = v
	case nil:
		d = NewDict()
	default:
		x, err := FromGo(vars)
		if err != nil {
			return "", err
		}
		var ok bool
		if d, ok = x.(*Dict); !ok {
			return "", fmt.Errorf("jinja: render variables must be a map, not %T", vars)
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	now := t.opts.Now
	if now == nil {
		now = time.Now
	}
	s := &state{ctx: ctx, lim: t.opts.Limits, now: now}
	s.globals = makeGlobals(s)
	root := &scope{vars: d}
	top := newScope(root)
	w := s.newOutput()
	if _, err := s.execBody(t.body, top, w); err != nil {
		return "", err
	}
	return w.String(), nil
}
