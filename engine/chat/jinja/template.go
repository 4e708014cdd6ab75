package jinja

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// Limits bound one render so that a hostile template cannot hang or
// exhaust the process. Zero fields take the defaults. This is the one
// place that lists every bound of the package:
//
//   - Parse refuses a source over MaxTemplateBytes (1 MiB) and a syntax
//     tree deeper than MaxNesting (500 levels: nested blocks, brackets
//     and unary operators, and each link of a chain such as a + b + c,
//     x|f|g, x.a[0]() or an elif), with a KindLimit error. Constant
//     folding at parse time has its own small budget; an expression that
//     would exceed it, or fail, is left to run time.
//   - A render is bounded by the fields below. Every argument that sizes
//     an allocation is checked against them before allocating: string and
//     list repetition, |batch and |slice fill, |center, ljust, rjust,
//     zfill, join, replace, range and |list. A few have fixed bounds too:
//     %-format and str.format widths at most 1<<20 and precisions at most
//     1<<10, |indent width at most 10,000, |tojson indent at most 100,
//     expandtabs tab size at most 1,000. round's precision is clamped as
//     in Python; integer arithmetic that leaves 64 bits is a KindType
//     error.
//   - A parse or render that panics (a bug) returns a KindInternal
//     error, with the stack logged at ERROR.
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
	// MaxRenderTime caps the wall time of one render, checked in every
	// loop, call and long-running builtin; past it the render fails with a
	// KindLimit error. The caller's context can end it sooner (a
	// KindCanceled error). Default 5 s.
	MaxRenderTime time.Duration
}

// DefaultLimits returns the limits used for zero fields.
func DefaultLimits() Limits {
	return Limits{
		MaxIterations:  1_000_000,
		MaxRecursion:   200,
		MaxOutputBytes: 64 << 20,
		MaxStringBytes: 64 << 20,
		MaxWorkBytes:   1 << 30,
		MaxRenderTime:  5 * time.Second,
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
	if l.MaxRenderTime <= 0 {
		l.MaxRenderTime = d.MaxRenderTime
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
func Parse(src string, opts Options) (t *Template, err error) {
	defer recoverInternal("parse", &err)
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
//
// The render stops at its deadline (Limits.MaxRenderTime) or when ctx is
// done, whichever comes first.
func (t *Template) Render(ctx context.Context, vars any) (out string, err error) {
	defer recoverInternal("render", &err)
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
	ctx, cancel := context.WithTimeoutCause(ctx, t.opts.Limits.MaxRenderTime, errRenderTime)
	defer cancel()
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

// errRenderTime is the cause of a render's context when its own deadline
// (Limits.MaxRenderTime) ends it.
var errRenderTime = errors.New("jinja: render deadline")

// ctxErr is the error of a render whose context is done: a KindLimit
// error when the render's own deadline passed, KindCanceled when the
// caller canceled it or its deadline passed first.
func ctxErr(ctx context.Context, lim Limits) *Error {
	err := ctx.Err()
	if context.Cause(ctx) == errRenderTime {
		return &Error{Kind: KindLimit, Msg: fmt.Sprintf("render took longer than %v", lim.MaxRenderTime), Err: err}
	}
	return &Error{Kind: KindCanceled, Msg: err.Error(), Err: err}
}

// recoverInternal is the last line of defence of Parse and Render: a
// panic is a bug, but it must not take the process down, so it becomes a
// KindInternal error in *err and the stack is logged at ERROR.
func recoverInternal(op string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	slog.Error("jinja: panic during "+op, "panic", r, "stack", string(debug.Stack()))
	*err = &Error{Kind: KindInternal, Msg: fmt.Sprintf("internal error during %s: %v", op, r)}
}
