package jinja

import (
	"errors"
	"fmt"
)

// ErrorKind classifies template errors the way Jinja2 and Python do.
type ErrorKind int

// Error kinds.
const (
	// KindSyntax: the template does not parse (TemplateSyntaxError,
	// TemplateAssertionError).
	KindSyntax ErrorKind = iota + 1
	// KindRaised: the template called raise_exception(msg)
	// (jinja2.exceptions.TemplateError); Error.Msg is msg verbatim.
	KindRaised
	// KindType: a Python TypeError, ValueError or similar (str + list,
	// iterating None, len of None, dividing by zero).
	KindType
	// KindUndefined: an Undefined value was used (UndefinedError).
	KindUndefined
	// KindSecurity: the sandbox refused an operation (SecurityError), such
	// as calling list.append.
	KindSecurity
	// KindRuntime: TemplateRuntimeError (an unknown filter reached at run
	// time, assigning an attribute of a non-namespace).
	KindRuntime
	// KindLimit: a sandbox limit was exceeded (see Limits).
	KindLimit
	// KindCanceled: the render's context was canceled or timed out.
	KindCanceled
	// KindUnsupported: the template needs a feature the sandbox does not
	// offer (include, import, extends).
	KindUnsupported
	// KindInternal: Parse or Render panicked, which is a bug in this
	// package; the panic was recovered and its stack logged.
	KindInternal
)

var kindNames = map[ErrorKind]string{
	KindSyntax:      "syntax error",
	KindRaised:      "template error",
	KindType:        "type error",
	KindUndefined:   "undefined error",
	KindSecurity:    "security error",
	KindRuntime:     "runtime error",
	KindLimit:       "limit exceeded",
	KindCanceled:    "canceled",
	KindUnsupported: "unsupported",
	KindInternal:    "internal error",
}

func (k ErrorKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is a failure to parse or render a template.
type Error struct {
	Kind ErrorKind
	// Msg is the message; for KindRaised it is exactly the argument the
	// template gave raise_exception.
	Msg string
	// Line is the 1-based template line, when known (0 otherwise).
	Line int
	// Err is the underlying cause (such as context.Canceled), if any.
	Err error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("jinja: %s: %s (line %d)", e.Kind, e.Msg, e.Line)
	}
	return fmt.Sprintf("jinja: %s: %s", e.Kind, e.Msg)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrLimitExceeded) and friends work.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrLimitExceeded:
		return e.Kind == KindLimit
	case ErrTemplateRaised:
		return e.Kind == KindRaised
	}
	return false
}

// Sentinels for errors.Is.
var (
	// ErrLimitExceeded matches every error of kind KindLimit.
	ErrLimitExceeded = errors.New("jinja: limit exceeded")
	// ErrTemplateRaised matches every error of kind KindRaised.
	ErrTemplateRaised = errors.New("jinja: template raised an exception")
)

// RaisedMessage returns the message a template passed to raise_exception,
// and whether err is such an error.
func RaisedMessage(err error) (string, bool) {
	var e *Error
	if errors.As(err, &e) && e.Kind == KindRaised {
		return e.Msg, true
	}
	return "", false
}

func newErr(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func typeErrorf(format string, args ...any) *Error { return newErr(KindType, format, args...) }

func limitErrorf(format string, args ...any) *Error { return newErr(KindLimit, format, args...) }

// err returns the error raised when an Undefined is used.
func (u undefined) err() *Error {
	if u.security {
		return &Error{Kind: KindSecurity, Msg: u.msg}
	}
	return &Error{Kind: KindUndefined, Msg: u.msg}
}

// undefinedName is the Undefined of a missing variable.
func undefinedName(name string) undefined {
	return undefined{msg: fmt.Sprintf("'%s' is undefined", name)}
}

// undefinedAttr is the Undefined of a missing attribute or item of obj.
func undefinedAttr(obj Value, name Value) undefined {
	if s, ok := name.(string); ok {
		return undefined{msg: fmt.Sprintf("'%s' has no attribute %s", objectTypeRepr(obj), shortRepr(s))}
	}
	return undefined{msg: fmt.Sprintf("%s has no element %s", objectTypeRepr(obj), shortRepr(name))}
}

// undefinedHint is an Undefined with a custom message.
func undefinedHint(msg string) undefined { return undefined{msg: msg} }
