package hub

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"saji/engine/fit"
)

func files(spec ...string) []File {
	var out []File
	for _, s := range spec {
		p, size, _ := strings.Cut(s, "=")
		var n int64 = 100
		if size != "" {
			fmt.Sscan(size, &n)
		}
		out = append(out, File{Path: p, Size: n})
	}
	return out
}

func TestLevel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Llama-3.2-1B-Instruct-Q4_K_M", "Q4_K_M"},
		{"model.q4_k_m", "Q4_K_M"},
		{"qwen2.5-7b-instruct-q4_k_m", "Q4_K_M"},
		{"Qwen3-30B-A3B-UD-Q4_K_XL", "UD-Q4_K_XL"},
		{"Mistral-7B-IQ4_NL", "IQ4_NL"},
		{"Mistral-7B-IQ4_XS", "IQ4_XS"},
		{"Mistral-7B-IQ2_XXS", "IQ2_XXS"},
		{"phi-Q4_0_4_4", "Q4_0_4_4"},
		{"phi-Q4_0", "Q4_0"},
		{"phi-Q5_1", "Q5_1"},
		{"gemma-2b-f16", "F16"},
		{"gemma-2b-BF16", "BF16"},
		{"gemma-2b.fp32", "F32"},
		{"Q4_K_M", "Q4_K_M"},
		{"Meta-Llama-3-8B-Instruct.Q6_K", "Q6_K"},
		{"qwen2-1_5b-instruct-q8_0", "Q8_0"},
		{"Llama-3.2-1B-Instruct-Q3_K_L", "Q3_K_L"},
		{"Llama-Q2_K_L", "Q2_K_L"},
		{"gpt-oss-20b-MXFP4", "MXFP4"},
		{"bf16-merged-Q5_K_S", "Q5_K_S"}, // the last level named wins
		{"Qwen2.5-7B-Instruct", ""},
		{"model", ""},
		{"q4kmish", ""},
	}
	for _, tt := range tests {
		if got := level(tt.in); got != tt.want {
			t.Errorf("level(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGroup(t *testing.T) {
	in := files(
		"README.md",
		"Llama-3.2-1B-Instruct-Q8_0.gguf=800",
		"Llama-3.2-1B-Instruct-Q4_K_M.gguf=400",
		"Llama-3.2-1B-Instruct-IQ2_XXS.gguf=200",
		"Llama-3.2-1B-Instruct-f16.gguf=1600",
		"Llama-3.2-1B-Instruct-BF16.gguf=1600",
		"Llama-3.2-1B-Instruct-Q3_K_S.gguf=300",
		"Llama-3.2-1B-Instruct-IQ1_S.gguf=150",
		"Llama-3.2-1B-Instruct-Q2_K.gguf=250",
		"Llama-3.2-1B-Instruct-F32.gguf=3200",
		"big-Q6_K-00002-of-00002.gguf=50",
		"big-Q6_K-00001-of-00002.gguf=600",
		"Q5_K_M/big-Q5_K_M-00001-of-00003.gguf=300",
		"Q5_K_M/big-Q5_K_M-00003-of-00003.gguf=200",
		"mmproj-model-f16.gguf=90",
		"MMPROJ-model-f32.gguf=180",
		"ggml-model.gguf=10",
		"Qwen3-UD-Q4_K_XL.gguf=450",
	)
	got := Group(in)
	var lines []string
	for _, q := range got {
		var paths []string
		for _, f := range q.Files {
			paths = append(paths, f.Path)
		}
		l := fmt.Sprintf("%s %d %d/%d", q.Name, q.Size, len(q.Files), q.Shards)
		if q.Incomplete {
			l += " incomplete"
		}
		if q.Shards > 1 {
			l += " " + strings.Join(paths, ",")
		}
		lines = append(lines, l)
		if len(q.MMProj) != 2 || q.MMProj[0].Path != "MMPROJ-model-f32.gguf" {
			t.Errorf("%s: mmproj %v", q.Name, q.MMProj)
		}
	}
	want := []string{
		"IQ1_S 150 1/1",
		"IQ2_XXS 200 1/1",
		"Q2_K 250 1/1",
		"Q3_K_S 300 1/1",
		"Q4_K_M 400 1/1",
		"UD-Q4_K_XL 450 1/1",
		"Q5_K_M 500 2/3 incomplete Q5_K_M/big-Q5_K_M-00001-of-00003.gguf,Q5_K_M/big-Q5_K_M-00003-of-00003.gguf",
		"Q6_K 650 2/2 big-Q6_K-00001-of-00002.gguf,big-Q6_K-00002-of-00002.gguf",
		"Q8_0 800 1/1",
		"BF16 1600 1/1",
		"F16 1600 1/1",
		"F32 3200 1/1",
		"ggml-model 10 1/1",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if q, ok := Find(got, "q6_k"); !ok || q.Shards != 2 {
		t.Errorf("Find(q6_k) = %+v, %v", q, ok)
	}
	if _, ok := Find(got, "Q4_0"); ok {
		t.Error("Find(Q4_0) found one")
	}
	if len(Group(files("README.md", "config.json"))) != 0 {
		t.Error("levels without GGUF files")
	}
	// Projectors alone are no level.
	if g := Group(files("mmproj-f16.gguf")); len(g) != 0 {
		t.Errorf("mmproj only: %+v", g)
	}
}

func TestBitsOrder(t *testing.T) {
	order := []string{"IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "Q2_K", "IQ3_XXS", "IQ3_XS",
		"Q3_K_S", "IQ3_M", "Q3_K_M", "IQ4_XS", "Q3_K_L", "IQ4_NL", "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "Q6_K", "Q8_0", "F16", "F32"}
	for i := 1; i < len(order); i++ {
		a, b := Quant{Name: order[i-1]}.Bits(), Quant{Name: order[i]}.Bits()
		if a > b || a == 0 {
			t.Errorf("%s (%.2f) !<= %s (%.2f)", order[i-1], a, order[i], b)
		}
	}
	tests := []struct {
		name string
		want float64
	}{
		{"Q4_K_M", 4.89}, {"Q8_0", 8.5}, {"q8_0", 8.5}, {"F16", 16}, {"BF16", 16}, {"Q4_0", 4.5},
		{"UD-Q8_0", 8.55}, {"nothing", 0},
	}
	for _, tt := range tests {
		if got := (Quant{Name: tt.name}).Bits(); got < tt.want-0.001 || got > tt.want+0.001 {
			t.Errorf("Bits(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Unlisted variants land between their neighbours.
	if b := (Quant{Name: "UD-Q4_K_XL"}).Bits(); b <= 4.89 || b >= 5.5 {
		t.Errorf("UD-Q4_K_XL = %v", b)
	}
	if b := (Quant{Name: "UD-Q2_K_XL"}).Bits(); b <= 2.96 || b >= 3.91 {
		t.Errorf("UD-Q2_K_XL = %v", b)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in, repo, quant string
		bad             bool
	}{
		{in: "bartowski/Llama-3.2-1B-Instruct-GGUF", repo: "bartowski/Llama-3.2-1B-Instruct-GGUF"},
		{in: "bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", repo: "bartowski/Llama-3.2-1B-Instruct-GGUF", quant: "Q4_K_M"},
		{in: " bartowski/Llama-3.2-1B-Instruct-GGUF:q4_k_m ", repo: "bartowski/Llama-3.2-1B-Instruct-GGUF", quant: "Q4_K_M"},
		{in: "hf.co/unsloth/Qwen3-8B-GGUF:ud-q4_k_xl", repo: "unsloth/Qwen3-8B-GGUF", quant: "UD-Q4_K_XL"},
		{in: "HF.co/unsloth/Qwen3-8B-GGUF:latest", repo: "unsloth/Qwen3-8B-GGUF"},
		{in: "huggingface.co/Qwen/Qwen2.5-7B-Instruct-GGUF", repo: "Qwen/Qwen2.5-7B-Instruct-GGUF"},
		{in: "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct-GGUF", repo: "Qwen/Qwen2.5-7B-Instruct-GGUF"},
		{in: "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct-GGUF/", repo: "Qwen/Qwen2.5-7B-Instruct-GGUF"},
		{in: "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct-GGUF/tree/main", repo: "Qwen/Qwen2.5-7B-Instruct-GGUF"},
		{in: "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct-GGUF/blob/main/qwen2.5-7b-instruct-q4_k_m-00001-of-00002.gguf", repo: "Qwen/Qwen2.5-7B-Instruct-GGUF", quant: "Q4_K_M"},
		{in: "https://hf.co/bartowski/X-GGUF/resolve/main/Q8_0/X-00001-of-00002.gguf?download=true", repo: "bartowski/X-GGUF", quant: "Q8_0"},
		{in: "https://huggingface.co/models/a/b", repo: "a/b"},
		{in: "llama3", bad: true},
		{in: "", bad: true},
		{in: "a/b:", bad: true},
		{in: "a/b:Q4 K", bad: true},
		{in: "../b", bad: true},
		{in: "a/..", bad: true},
		{in: "-a/b", bad: true},
		{in: "https:///x", bad: true},
	}
	for _, tt := range tests {
		repo, quant, err := Parse(tt.in)
		if tt.bad {
			if err == nil || !strings.HasPrefix(err.Error(), "hub: ") {
				t.Errorf("Parse(%q) = %q, %q, %v; want an error", tt.in, repo, quant, err)
			}
			continue
		}
		if err != nil || repo != tt.repo || quant != tt.quant {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q", tt.in, repo, quant, err, tt.repo, tt.quant)
		}
	}
}

func TestRecommend(t *testing.T) {
	const GB = 1 << 30
	need := fit.SizeNeed
	lv := func(name string, gb float64) Quant {
		return Quant{Name: name, Files: []File{{Path: name + ".gguf", Size: int64(gb * GB)}}, Size: int64(gb * GB), Shards: 1}
	}
	// An 8B model's levels.
	full := []Quant{lv("IQ2_XXS", 2.4), lv("Q2_K", 3.2), lv("Q3_K_M", 4.0), lv("Q4_K_S", 4.7), lv("Q4_K_M", 4.9),
		lv("Q5_K_M", 5.7), lv("Q6_K", 6.6), lv("Q8_0", 8.5), lv("F16", 16)}
	// engine/fit's fallback: size*1.2 + 0.5 GB: Q4_K_M 6.38, Q5_K_M 7.34, Q6_K 8.42, Q8_0 10.7, Q3_K_M 5.3, Q2_K 4.34, IQ2_XXS 3.38.
	noQ4KM := []Quant{lv("Q3_K_M", 4.0), lv("IQ4_XS", 4.4), lv("Q4_0", 4.6), lv("Q8_0", 8.5)}
	highOnly := []Quant{lv("Q5_K_M", 5.7), lv("Q6_K", 6.6), lv("Q8_0", 8.5)}
	f16Only := []Quant{lv("F16", 2)}
	incomplete := []Quant{lv("Q4_K_M", 4.9), lv("Q8_0", 8.5)}
	incomplete[0].Incomplete = true
	// refuse stands for fit.LevelRunnable on a build without some types.
	refuse := func(names ...string) func(string) error {
		return func(level string) error {
			if slices.Contains(names, level) {
				return errors.New(level + " cannot run")
			}
			return nil
		}
	}
	all := []string{"IQ2_XXS", "Q2_K", "Q3_K_M", "Q4_K_S", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "F16"}
	tests := []struct {
		name   string
		levels []Quant
		avail  float64
		want   string
		ok     bool
		runs   func(string) error
	}{
		{"Q4_K_M fits", full, 7, "Q4_K_M", true, nil},
		{"Q4_K_M fits, larger not twice", full, 12, "Q4_K_M", true, nil},
		{"plenty: Q5_K_M", full, 15, "Q5_K_M", true, nil},
		{"plenty: Q6_K", full, 17, "Q6_K", true, nil},
		{"plenty: Q8_0", full, 64, "Q8_0", true, nil},
		{"Q4_K_M too big: Q3_K_M", full, 6, "Q3_K_M", true, nil},
		{"Q2_K", full, 4.5, "Q2_K", true, nil},
		{"IQ2_XXS", full, 3.5, "IQ2_XXS", true, nil},
		{"nothing fits", full, 2, "IQ2_XXS", false, nil},
		{"no Q4_K_M: nearest 4-bit", noQ4KM, 8, "Q4_0", true, nil},
		{"no Q4_K_M, smaller", noQ4KM, 5.5, "Q3_K_M", true, nil},
		{"no Q4_K_M, plenty", noQ4KM, 32, "Q8_0", true, nil},
		{"only larger levels", highOnly, 8, "Q5_K_M", true, nil},
		{"only larger levels, plenty", highOnly, 40, "Q8_0", true, nil},
		{"only larger levels, none fits", highOnly, 4, "Q5_K_M", false, nil},
		{"F16 only fits", f16Only, 8, "F16", true, nil},
		{"F16 only too big", f16Only, 1, "F16", false, nil},
		{"incomplete skipped", incomplete, 12, "Q8_0", true, nil},
		{"IQ2_XXS cannot run", full, 3.5, "Q2_K", false, refuse("IQ2_XXS")},
		{"IQ2_XXS cannot run, Q2_K fits", full, 4.5, "Q2_K", true, refuse("IQ2_XXS")},
		{"Q4_K_M cannot run: nearest 4-bit", full, 7, "Q4_K_S", true, refuse("Q4_K_M")},
		{"only IQ2_XXS runs", full, 64, "IQ2_XXS", true, refuse(all[1:]...)},
		{"none runs", full, 64, "", false, refuse(all...)},
		{"F16 only cannot run", f16Only, 8, "", false, refuse("F16")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Recommend(tt.levels, int64(tt.avail*GB), need, tt.runs)
			if got.Name != tt.want || ok != tt.ok {
				t.Errorf("Recommend(%.1f GB) = %s, %v; want %s, %v", tt.avail, got.Name, ok, tt.want, tt.ok)
			}
		})
	}
	if q, ok := Recommend(nil, 1<<40, need, nil); ok || q.Name != "" {
		t.Errorf("no levels: %+v, %v", q, ok)
	}
}

func TestRecommendReason(t *testing.T) {
	const GB = 1 << 30
	lv := func(name string, gb float64) Quant {
		return Quant{Name: name, Files: []File{{Path: name + ".gguf", Size: int64(gb * GB)}}, Size: int64(gb * GB), Shards: 1}
	}
	full := []Quant{lv("Q2_K", 3.2), lv("Q3_K_M", 4.0), lv("Q4_K_M", 4.9), lv("Q5_K_M", 5.7), lv("Q8_0", 8.5)}
	tests := []struct {
		name   string
		levels []Quant
		avail  float64
		want   string
	}{
		{"anchor", full, 7, "Q4_K_M: the usual best balance of size and quality, and it fits the 7.5 GB free."},
		{"larger", full, 64, "Q8_0: better quality than the 4-bit levels; the 69 GB free hold it twice over, and it runs fast enough."},
		{"smaller", full, 6, "Q3_K_M: the largest level that fits the 6.4 GB free; the 4-bit levels need more."},
		{"only larger levels", []Quant{lv("Q5_K_M", 5.7), lv("Q8_0", 8.5)}, 8,
			"Q5_K_M: the smallest level here from 4 bits up, and it fits the 8.6 GB free."},
		{"full precision", []Quant{lv("F16", 2)}, 8,
			"F16: the repository has only full-precision files, and this one fits the 8.6 GB free."},
		{"nothing fits", full, 2, "Q2_K: the smallest level, though none fits the 2.1 GB free."},
		{"none", nil, 8, ""},
	}
	for _, tt := range tests {
		q, ok, why := RecommendReason(tt.levels, int64(tt.avail*GB), fit.SizeNeed, nil, nil)
		if why != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, why, tt.want)
		}
		if q2, ok2 := Recommend(tt.levels, int64(tt.avail*GB), fit.SizeNeed, nil); q2.Name != q.Name || ok2 != ok {
			t.Errorf("%s: RecommendReason picks %s, %v; Recommend %s, %v", tt.name, q.Name, ok, q2.Name, ok2)
		}
	}
	// On a slow machine the larger levels are not worth their speed:
	// at 20 GB/s Q8_0 (8.5 GB) writes 2.5 tokens/s, Q5_K_M 3.8.
	slow := func(q Quant) bool { return fit.FastEnough(q.Size, 20*GB) }
	if q, _, why := RecommendReason(full, 64*GB, fit.SizeNeed, nil, slow); q.Name != "Q4_K_M" || !strings.HasPrefix(why, "Q4_K_M: the usual") {
		t.Errorf("slow machine: %s (%q)", q.Name, why)
	}
	fast := func(q Quant) bool { return fit.FastEnough(q.Size, 200*GB) }
	if q, _, _ := RecommendReason(full, 64*GB, fit.SizeNeed, nil, fast); q.Name != "Q8_0" {
		t.Errorf("fast machine: %s", q.Name)
	}
}

func TestPickMMProj(t *testing.T) {
	for _, c := range []struct {
		files []string
		want  string
	}{
		{nil, ""},
		{[]string{"mmproj-model-Q8_0.gguf"}, "mmproj-model-Q8_0.gguf"},
		{[]string{"mmproj-BF16.gguf", "mmproj-F16.gguf", "mmproj-F32.gguf"}, "mmproj-F16.gguf"},
		{[]string{"vision/mmproj-bf16.gguf", "vision/mmproj-f16.gguf"}, "vision/mmproj-f16.gguf"},
		{[]string{"mmproj-F32.gguf", "mmproj-BF16.gguf"}, "mmproj-F32.gguf"},
	} {
		var fs []File
		for _, f := range c.files {
			fs = append(fs, File{Path: f})
		}
		got, ok := PickMMProj(fs)
		if got.Path != c.want || ok != (c.want != "") {
			t.Errorf("%v: %q %v, want %q", c.files, got.Path, ok, c.want)
		}
	}
}
