package chat

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"saji/internal/refdata"
)

// fixedNow is the clock the golden corpus was rendered with.
func fixedNow() time.Time { return time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC) }

type goldenCase struct {
	template  string
	id        string
	context   *Dict
	output    string
	hasOutput bool
	errMsg    string
	errType   string
}

// loadGolden reads every case of one .jsonl file of the corpus.
func loadGolden(t testing.TB, path string) []goldenCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		v, err := DecodeJSON(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rec := v.(*Dict)
		var c goldenCase
		get := func(k string) Value { x, _ := rec.Get(k); return x }
		c.template, _ = get("template").(string)
		c.id, _ = get("case").(string)
		c.context, _ = get("context").(*Dict)
		if out, ok := rec.Get("output"); ok {
			c.output, c.hasOutput = out.(string), true
		}
		c.errMsg, _ = get("error").(string)
		c.errType, _ = get("error_type").(string)
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// pyErrorKinds maps the corpus's Python exception classes to error kinds.
var pyErrorKinds = map[string]ErrorKind{
	"TypeError":            KindType,
	"UndefinedError":       KindUndefined,
	"SecurityError":        KindSecurity,
	"TemplateRuntimeError": KindRuntime,
}

// TestGoldenCorpus renders every case of the chat-template corpus and
// requires byte-exact output, or failure where HF fails (with the same
// message for raise_exception).
func TestGoldenCorpus(t *testing.T) {
	dir := refdata.Path(t, "templates")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in %s: %v", dir, err)
	}
	sort.Strings(files)
	var nTemplates, nCases, nErrCases, pass, fail int
	for _, jf := range files {
		cases := loadGolden(t, jf)
		if len(cases) == 0 {
			continue
		}
		name := cases[0].template
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		nTemplates++
		tmpl, err := ParseWithOptions(string(src), Options{Now: fixedNow})
		if err != nil {
			t.Errorf("%s: parse: %v", name, err)
			fail += len(cases)
			nCases += len(cases)
			continue
		}
		for _, c := range cases {
			nCases++
			if !c.hasOutput {
				nErrCases++
			}
			out, err := tmpl.Render(context.Background(), c.context)
			ok := true
			switch {
			case c.hasOutput && err != nil:
				ok = false
				t.Errorf("%s %s: unexpected error: %v", name, c.id, err)
			case c.hasOutput && out != c.output:
				ok = false
				t.Errorf("%s %s: output mismatch\n%s", name, c.id, firstDiff(c.output, out))
			case !c.hasOutput && err == nil:
				ok = false
				t.Errorf("%s %s: rendered, want %s: %s", name, c.id, c.errType, c.errMsg)
			case !c.hasOutput && c.errType == "TemplateError":
				if msg, raised := RaisedMessage(err); !raised || msg != c.errMsg {
					ok = false
					t.Errorf("%s %s: error %v, want raise_exception(%q)", name, c.id, err, c.errMsg)
				}
			case !c.hasOutput:
				// Other failures need not match Python's text, but they
				// must be the same kind of failure.
				var e *Error
				if !errors.As(err, &e) || pyErrorKinds[c.errType] != e.Kind {
					ok = false
					t.Errorf("%s %s: error %v, want a %s (%s)", name, c.id, err, c.errType, c.errMsg)
				}
			}
			if ok {
				pass++
			} else {
				fail++
			}
		}
	}
	t.Logf("corpus: %d templates, %d cases (%d expected errors): %d pass, %d mismatches", nTemplates, nCases, nErrCases, pass, fail)
}

// firstDiff shows where two strings first differ.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := i - 80
	if lo < 0 {
		lo = 0
	}
	clip := func(s string) string {
		hi := i + 80
		if hi > len(s) {
			hi = len(s)
		}
		if lo > len(s) {
			return ""
		}
		return s[lo:hi]
	}
	var b strings.Builder
	b.WriteString("at byte " + itoa(i) + "\nwant: " + strconvQuote(clip(want)) + "\ngot:  " + strconvQuote(clip(got)))
	return b.String()
}
