package jinja

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"saji/engine/chat/internal/corpus"
	"saji/internal/refdata"
)

// pyErrorKinds maps the corpus's Python exception classes to error kinds.
var pyErrorKinds = map[string]ErrorKind{
	"TypeError":            KindType,
	"UndefinedError":       KindUndefined,
	"SecurityError":        KindSecurity,
	"TemplateRuntimeError": KindRuntime,
}

// localCorpus holds the golden cases of templates the shared corpus
// lacks, in its format (engine/chat/testdata/templates).
const localCorpus = "../testdata/templates"

// TestGoldenCorpus renders every case of the chat-template corpus (the
// shared one and localCorpus) and requires byte-exact output, or failure
// where HF fails (with the same message for raise_exception).
func TestGoldenCorpus(t *testing.T) {
	dir := refdata.Path(t, "templates")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in %s: %v", dir, err)
	}
	local, err := filepath.Glob(filepath.Join(localCorpus, "*.jsonl"))
	if err != nil || len(local) == 0 {
		t.Fatalf("no corpus files in %s: %v", localCorpus, err)
	}
	files = append(files, local...)
	sort.Strings(files)
	var nTemplates, nCases, nErrCases, pass, fail int
	for _, jf := range files {
		cases := corpus.Load(t, jf)
		if len(cases) == 0 {
			continue
		}
		name := cases[0].Template
		src, err := os.ReadFile(filepath.Join(filepath.Dir(jf), name))
		if err != nil {
			t.Fatal(err)
		}
		nTemplates++
		tmpl, err := Parse(string(src), Options{Now: corpus.FixedNow})
		if err != nil {
			t.Errorf("%s: parse: %v", name, err)
			fail += len(cases)
			nCases += len(cases)
			continue
		}
		for _, c := range cases {
			nCases++
			if !c.HasOutput {
				nErrCases++
			}
			out, err := tmpl.Render(context.Background(), c.Context)
			ok := true
			switch {
			case c.HasOutput && err != nil:
				ok = false
				t.Errorf("%s %s: unexpected error: %v", name, c.ID, err)
			case c.HasOutput && out != c.Output:
				ok = false
				t.Errorf("%s %s: output mismatch\n%s", name, c.ID, corpus.FirstDiff(c.Output, out))
			case !c.HasOutput && err == nil:
				ok = false
				t.Errorf("%s %s: rendered, want %s: %s", name, c.ID, c.ErrType, c.ErrMsg)
			case !c.HasOutput && c.ErrType == "TemplateError":
				if msg, raised := RaisedMessage(err); !raised || msg != c.ErrMsg {
					ok = false
					t.Errorf("%s %s: error %v, want raise_exception(%q)", name, c.ID, err, c.ErrMsg)
				}
			case !c.HasOutput:
				// Other failures need not match Python's text, but they
				// must be the same kind of failure.
				var e *Error
				if !errors.As(err, &e) || pyErrorKinds[c.ErrType] != e.Kind {
					ok = false
					t.Errorf("%s %s: error %v, want a %s (%s)", name, c.ID, err, c.ErrType, c.ErrMsg)
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
