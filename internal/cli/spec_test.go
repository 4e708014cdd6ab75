package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"saji/internal/refdata"
)

func TestSpecFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		sp   specFlags
		ok   bool
	}{
		{"none", specFlags{draftMax: 8}, true},
		{"none, lengths unset", specFlags{}, true},
		{"a draft", specFlags{draft: "d.gguf", draftMax: 4, draftMin: 2}, true},
		{"lookup", specFlags{lookup: true, draftMax: 16}, true},
		{"both", specFlags{draft: "d.gguf", lookup: true, draftMax: 8}, false},
		{"draft-max 0", specFlags{lookup: true}, false},
		{"draft-min over draft-max", specFlags{lookup: true, draftMax: 2, draftMin: 3}, false},
		{"negative draft-min", specFlags{lookup: true, draftMax: 2, draftMin: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := tc.sp.speculative()
			if (err == nil) != tc.ok {
				t.Fatalf("speculative() = %+v, %v; want ok %v", sp, err, tc.ok)
			}
			if err == nil && (sp.Draft != tc.sp.draft || sp.Lookup != tc.sp.lookup || sp.DraftMax != tc.sp.draftMax) {
				t.Errorf("speculative() = %+v", sp)
			}
		})
	}
}

var draftNote = regexp.MustCompile(`(?m)^prompt: \d+ tokens, [0-9.]+ tokens/s; generated: 32 tokens, [0-9.]+ tokens/s; draft: (\d+) of (\d+) accepted \(\d+%\)$`)

// TestRunSpeculative runs stories260K greedily with prompt lookup and with
// itself as the draft (llama.cpp's -md): the text is the reference's, the
// statistics count the drafts, and a stop string still cuts the text.
func TestRunSpeculative(t *testing.T) {
	model := refdata.Path(t, "models/stories260K.gguf")
	ref := loadStoriesRef(t, "stories260K.kvf16.json")
	want := strings.Join(ref.Greedy.Pieces, "")
	for _, args := range [][]string{{"--lookup"}, {"-md", model, "--draft-max", "5"}, {"-md", model, "--no-mmap", "--mlock"}} {
		out, errOut, err := runCmd(t, "", append(append([]string{"run", "-m", model, "--temp", "0", "-n", "32"}, llamaArgs(args)...), ref.Text)...)
		if err != nil {
			t.Fatal(err)
		}
		if out != want {
			t.Errorf("%v: output %q\nwant %q", args, out, want)
		}
		m := draftNote.FindStringSubmatch(errOut)
		if m == nil {
			t.Errorf("%v: no statistics line with the drafts in %q", args, errOut)
		} else if args[0] == "-md" && m[1] != m[2] {
			t.Errorf("%v: the model drafting for itself: %s", args, m[0])
		}
		out, _, err = runCmd(t, "", append(append([]string{"run", "-m", model, "--temp", "0", "-n", "32", "-q", "--stop", "red ball"}, llamaArgs(args)...), ref.Text)...)
		if err != nil || out != " One day, she saw a big, " {
			t.Errorf("%v: with a stop string: %q, %v", args, out, err)
		}
	}
	if _, _, err := runCmd(t, "", "run", "-m", model, "--lookup", "--draft", model, "hi"); err == nil {
		t.Error("--lookup with --draft: no error")
	}
}

// TestBenchSpeculative runs the speculative test with prompt lookup and
// with the model as its own draft: the table says the outputs were the
// same, and the JSON record has the figures.
func TestBenchSpeculative(t *testing.T) {
	path := tinyModel(t)
	out, errs, status := run(t, Options{}, "bench", "-m", path, "-p", "0", "-n", "12", "-r", "2", "-t", "2", "--lookup")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	row := regexp.MustCompile(`(?m)^\| llama \?B Q8_0 +\| +2 \| +spec12 \| lookup +\| +8 \| +[0-9.]+ \| +[0-9.]+ \| +[0-9.]+x \| +[0-9.]+% \| +[0-9.]+ \| +yes \|$`)
	if !row.MatchString(out) {
		t.Errorf("no spec12 row in\n%s", out)
	}
	out, errs, status = run(t, Options{}, "bench", "-m", path, "-p", "0", "-n", "12", "-r", "2", "-t", "2", "-md", path, "--draft-max", "3", "--json", "--no-mmap")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	var recs []map[string]any
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want tg12 and spec12", len(recs))
	}
	out, errs, status = run(t, Options{}, "bench", "-m", path, "-n", "6", "-r", "1", "-t", "2", "--lookup", "--spec-only")
	if status != 0 || strings.Contains(out, "tg6") || strings.Contains(out, "t/s |\n") || !strings.Contains(out, "spec6") {
		t.Errorf("--spec-only: status %d: %s%s", status, out, errs)
	}
	if _, errs, status := run(t, Options{}, "bench", "-m", path, "--spec-only"); status == 0 || !strings.Contains(errs, "--lookup") {
		t.Errorf("--spec-only without a drafter: status %d: %s", status, errs)
	}
	r := recs[1]
	if r["test"] != "spec12" || r["same_output"] != true || r["use_mmap"] != false || r["draft_max"] != 3.0 || r["acceptance_rate"] != 1.0 ||
		r["draft_n"].(float64) == 0 || r["speedup"].(float64) <= 0 || r["tokens_per_step"].(float64) <= 1 {
		t.Errorf("record %v", r)
	}
}
