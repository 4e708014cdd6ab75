package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/internal/refdata"
)

func TestEval(t *testing.T) {
	dir := refdata.Dir(t)
	raw, err := os.ReadFile(filepath.Join(dir, "ref", "stories260K.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Prompts []struct {
			Text      string        `json:"text"`
			Tokens    []int32       `json:"tokens"`
			TopLogits [][][]float64 `json:"top_logits"`
			Last      []float64     `json:"last_logits"`
			Greedy    struct {
				Tokens []int32 `json:"tokens"`
			} `json:"greedy"`
		} `json:"prompts"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	p := ref.Prompts[0]
	out, err := runWithInput(t, "", "eval", "-m", filepath.Join(dir, "models", "stories260K.gguf"),
		"-p", p.Text, "--top", "5", "--greedy", "8", "--threads", "2")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tokens    []int32       `json:"tokens"`
		TopLogits [][][]float64 `json:"top_logits"`
		Last      []float64     `json:"last_logits"`
		Greedy    []int32       `json:"greedy"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%.300s", err, out)
	}
	if !equalIDs(got.Tokens, p.Tokens) {
		t.Fatalf("tokens %v, want %v", got.Tokens, p.Tokens)
	}
	if len(got.TopLogits) != len(p.Tokens) || len(got.Last) != len(p.Last) || len(got.Greedy) != 8 {
		t.Fatalf("shape: %d positions, %d last logits, %d greedy", len(got.TopLogits), len(got.Last), len(got.Greedy))
	}
	for i, row := range got.TopLogits {
		if len(row) != 5 {
			t.Fatalf("position %d has %d top logits", i, len(row))
		}
		for r, pair := range row {
			want := p.TopLogits[i][r]
			if pair[0] != want[0] || math.Abs(pair[1]-want[1]) > 1e-3 {
				t.Errorf("position %d rank %d: %v, want %v", i, r, pair, want)
			}
		}
	}
	for id, v := range got.Last {
		if math.Abs(v-p.Last[id]) > 1e-3 {
			t.Fatalf("last logit %d: %g, want %g", id, v, p.Last[id])
		}
	}
	if !equalIDs(got.Greedy, p.Greedy.Tokens[:8]) {
		t.Errorf("greedy %v, want %v", got.Greedy, p.Greedy.Tokens[:8])
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEvalErrors(t *testing.T) {
	model := refdata.Path(t, "models/stories260K.gguf")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"eval", "-p", "x"}, "model is required"},
		{"missing file", []string{"eval", "-m", filepath.Join(t.TempDir(), "none.gguf"), "-p", "x"}, "eval:"},
		{"negative top", []string{"eval", "-m", model, "-p", "x", "--top", "-1"}, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runWithInput(t, "", tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
