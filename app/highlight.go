package app

// Syntax highlighting of code blocks by chroma, in the colours of the
// current theme (so it reads in the dark and the light variant alike).

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// maxHighlight is the longest code, in bytes, that is highlighted;
// longer code shows plain, as highlighting it would stall the UI.
const maxHighlight = 256 << 10

// highlightCode returns code as runs of monospaced text coloured by
// token for the language lang; code in an unknown language (or none) is
// one plain run.
func highlightCode(code, lang string) []inlineRun {
	plain := []inlineRun{{Text: code, Style: runStyle{Mono: true}}}
	if lang == "" || len(code) > maxHighlight {
		return plain
	}
	lexer := lexers.Get(lang)
	if lexer == nil {
		return plain
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return plain
	}
	var runs []inlineRun
	for tok := it(); tok != chroma.EOF; tok = it() {
		style := tokenStyle(tok.Type)
		if n := len(runs); n > 0 && runs[n-1].Style == style {
			runs[n-1].Text += tok.Value
			continue
		}
		runs = append(runs, inlineRun{Text: tok.Value, Style: style})
	}
	// The lexer ends the code with a line break it may not have had.
	if n := len(runs); n > 0 && !strings.HasSuffix(code, "\n") {
		runs[n-1].Text = strings.TrimSuffix(runs[n-1].Text, "\n")
	}
	return runs
}

// tokenStyle is the style of a token of type t: a theme colour by kind.
func tokenStyle(t chroma.TokenType) runStyle {
	s := runStyle{Mono: true, Color: tokenColor(t)}
	if t.InCategory(chroma.Comment) {
		s.Italic = true
	}
	return s
}

// tokenColor is the theme colour of a token of type t ("": the text's).
func tokenColor(t chroma.TokenType) fyne.ThemeColorName {
	switch {
	case t == chroma.KeywordType || t.InSubCategory(chroma.NameBuiltin) || t == chroma.NameClass:
		return theme.ColorNameHyperlink
	case t.InCategory(chroma.Keyword), t == chroma.NameTag, t == chroma.OperatorWord:
		return theme.ColorNamePrimary
	case t.InCategory(chroma.Comment):
		return theme.ColorNamePlaceHolder
	case t.InSubCategory(chroma.LiteralString), t == chroma.GenericInserted:
		return theme.ColorNameSuccess
	case t.InSubCategory(chroma.LiteralNumber), t == chroma.NameAttribute, t == chroma.NameDecorator:
		return theme.ColorNameWarning
	case t == chroma.GenericDeleted, t == chroma.Error:
		return theme.ColorNameError
	}
	return ""
}
