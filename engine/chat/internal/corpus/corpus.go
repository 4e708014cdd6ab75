// Package corpus reads the chat-template golden corpus
// (testdata/templates: one .jsonl file of cases per template, rendered by
// Hugging Face transformers) for the tests of engine/chat and
// engine/chat/jinja.
package corpus

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FixedNow is the clock the golden corpus was rendered with.
func FixedNow() time.Time { return time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC) }

// Case is one rendering of a template.
type Case struct {
	// Template is the template's file name, beside the .jsonl file.
	Template string `json:"template"`
	// ID names the case ("conversation/gen=true", ...).
	ID string `json:"case"`
	// Context is the JSON object of template variables, in the order
	// apply_chat_template passed them.
	Context json.RawMessage `json:"context"`
	// Output is the rendered text, when HasOutput.
	Output string `json:"-"`
	// HasOutput: the template rendered; otherwise it failed with ErrType
	// (the Python exception class) and ErrMsg.
	HasOutput bool   `json:"-"`
	ErrMsg    string `json:"error"`
	ErrType   string `json:"error_type"`
}

// Load reads every case of one .jsonl file of the corpus.
func Load(t testing.TB, path string) []Case {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var c struct {
			Case
			Output *string `json:"output"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if c.Output != nil {
			c.Case.Output, c.HasOutput = *c.Output, true
		}
		cases = append(cases, c.Case)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// FirstDiff shows where two strings first differ.
func FirstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(i-80, 0)
	clip := func(s string) string {
		if lo > len(s) {
			return ""
		}
		return s[lo:min(i+80, len(s))]
	}
	var b strings.Builder
	b.WriteString("at byte " + strconv.Itoa(i) + "\nwant: " + strconv.Quote(clip(want)) + "\ngot:  " + strconv.Quote(clip(got)))
	return b.String()
}
