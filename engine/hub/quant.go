package hub

import (
	"cmp"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"saji/engine/units"
)

// Quant is one quantization level offered by a repository: a single GGUF
// file or a complete (or incomplete) set of shards.
type Quant struct {
	// Name is the level in upper case: "Q4_K_M", "IQ4_XS", "F16", "BF16",
	// "Q8_0", "UD-Q4_K_XL"... For a GGUF file whose name says no level, it is
	// the file's name without ".gguf".
	Name string
	// Files are the level's files, shards in order.
	Files []File
	// Size is the sum of the files' sizes.
	Size int64
	// Shards is how many files the level has (the N of -0000i-of-0000N),
	// 1 for a single file.
	Shards int
	// Incomplete is set when shards are missing from the repository.
	Incomplete bool
	// MMProj are the repository's multimodal projector files (mmproj-*),
	// offered with every level.
	MMProj []File
}

// bitsPerWeight is about how many bits a weight takes at each level:
// llama.cpp's block sizes for the plain types (Q8_0: 34 bytes per 32
// weights = 8.5) and, for the mixes llama-quantize writes, their usual
// figures on 7-8B models (a mix keeps some tensors at higher precision).
var bitsPerWeight = map[string]float64{
	"IQ1_S": 1.56, "IQ1_M": 1.75, "TQ1_0": 1.69,
	"IQ2_XXS": 2.06, "TQ2_0": 2.06, "IQ2_XS": 2.31, "IQ2_S": 2.5, "IQ2_M": 2.7,
	"Q2_K_S": 2.9, "Q2_K": 2.96, "Q2_K_L": 3.1,
	"IQ3_XXS": 3.06, "IQ3_XS": 3.3, "IQ3_S": 3.44, "IQ3_M": 3.66,
	"Q3_K_S": 3.5, "Q3_K_M": 3.91, "Q3_K_L": 4.27, "Q3_K_XL": 4.4,
	"IQ4_XS": 4.25, "MXFP4": 4.25, "IQ4_NL": 4.5,
	"Q4_0": 4.5, "Q4_0_4_4": 4.5, "Q4_0_4_8": 4.5, "Q4_0_8_8": 4.5,
	"Q4_K_S": 4.58, "Q4_K_M": 4.89, "Q4_K_L": 5.0, "Q4_1": 5.0,
	"Q5_0": 5.5, "Q5_K_S": 5.54, "Q5_K_M": 5.69, "Q5_K_L": 5.8, "Q5_1": 6.0,
	"Q6_K": 6.56, "Q6_K_L": 6.7,
	"Q8_0": 8.5, "Q8_K_XL": 9.0,
	"BF16": 16, "F16": 16, "F32": 32,
}

// Bits returns about how many bits per weight the level takes (Q4_K_M ≈
// 4.89, Q8_0 = 8.5, F16 = 16), or 0 when the name is not a known level.
// Unsloth's dynamic levels (UD-Q4_K_XL) count as their base level plus a
// little, since they keep some tensors at higher precision.
func (q Quant) Bits() float64 { return levelBits(q.Name) }

func levelBits(name string) float64 {
	n := strings.ToUpper(name)
	ud := false
	if s, ok := strings.CutPrefix(n, "UD-"); ok {
		n, ud = s, true
	}
	b, ok := bitsPerWeight[n]
	if !ok {
		// An unlisted variant: its base type plus the variant's extra.
		base, extra := n, 0.0
		for _, v := range []struct {
			suffix string
			extra  float64
		}{{"_XL", 0.4}, {"_L", 0.2}, {"_M", 0.1}, {"_S", 0}, {"_XS", -0.1}, {"_XXS", -0.2}} {
			if s, ok := strings.CutSuffix(n, v.suffix); ok {
				base, extra = s, v.extra
				break
			}
		}
		switch {
		case bitsPerWeight[base+"_M"] > 0:
			b = bitsPerWeight[base+"_M"] + extra
		case bitsPerWeight[base] > 0:
			b = bitsPerWeight[base] + extra
		default:
			return 0
		}
	}
	if ud {
		b += 0.05 // sorts after the plain level of the same name
	}
	return b
}

// reLevel finds a quantization level in a file or folder name.
var reLevel = regexp.MustCompile(`(?i)(?:^|[-_.\s])((?:ud-)?(?:iq[1-4]_(?:xxs|xs|nl|s|m)|tq[12]_0|q4_0_[48]_[48]|q[2-8]_k(?:_(?:xxs|xs|xl|s|m|l))?|q4_[01]|q5_[01]|q8_0|mxfp4|bf16|fp16|f16|fp32|f32))(?:$|[-_.\s])`)

// reShard matches the shard suffix of a GGUF split: "-00001-of-00003".
var reShard = regexp.MustCompile(`(?i)-(\d{5})-of-(\d{5})$`)

// level returns the level named in s (the last one), normalized, or "".
func level(s string) string {
	var last string
	for i := 0; i < len(s); {
		m := reLevel.FindStringSubmatchIndex(s[i:])
		if m == nil {
			break
		}
		last = s[i+m[2] : i+m[3]]
		i += m[3] // the next match may start with this one's boundary
	}
	switch l := strings.ToUpper(last); l {
	case "FP16":
		return "F16"
	case "FP32":
		return "F32"
	default:
		return l
	}
}

// IsMMProj says whether a GGUF file is a multimodal projector (mmproj).
func IsMMProj(p string) bool {
	return strings.Contains(strings.ToLower(path.Base(p)), "mmproj")
}

// reF16 matches an F16 file name (not a BF16 one).
var reF16 = regexp.MustCompile(`(?i)(^|[^b])f16`)

// PickMMProj chooses the projector to download with a level (saji pull
// --mmproj, Discover): the F16 one when there are several (what
// llama.cpp's docs use), else the first.
func PickMMProj(files []File) (File, bool) {
	if len(files) == 0 {
		return File{}, false
	}
	for _, f := range files {
		if reF16.MatchString(path.Base(f.Path)) {
			return f, true
		}
	}
	return files[0], true
}

// isGGUF says whether a path names a GGUF file.
func isGGUF(p string) bool { return strings.HasSuffix(strings.ToLower(p), ".gguf") }

// Group sorts a repository's GGUF files into quantization levels, smallest
// first (by Bits; levels Bits does not know come last). Shards of one level
// are kept together in order; projector (mmproj) files are not levels but
// go with every level's MMProj. Files that are not .gguf are ignored.
func Group(files []File) []Quant {
	type set struct {
		name   string
		total  int
		shards map[int]File
		first  string
	}
	sets := map[string]*set{}
	var mmproj []File
	for _, f := range files {
		if !isGGUF(f.Path) {
			continue
		}
		if IsMMProj(f.Path) {
			mmproj = append(mmproj, f)
			continue
		}
		dir, base := path.Split(f.Path)
		stem := base[:len(base)-len(".gguf")]
		idx, total := 1, 1
		if m := reShard.FindStringSubmatch(stem); m != nil {
			idx, _ = strconv.Atoi(m[1])
			total, _ = strconv.Atoi(m[2])
			stem = stem[:len(stem)-len(m[0])]
		}
		name := level(stem)
		if name == "" {
			// A level folder: "Q4_K_M/model-00001-of-00002.gguf".
			parts := strings.Split(strings.Trim(dir, "/"), "/")
			for i := len(parts) - 1; i >= 0 && name == ""; i-- {
				name = level(parts[i])
			}
		}
		if name == "" {
			name = stem
		}
		key := name + "\x00" + dir + stem
		s := sets[key]
		if s == nil {
			s = &set{name: name, total: total, shards: map[int]File{}, first: f.Path}
			sets[key] = s
		}
		s.total = max(s.total, total)
		s.shards[idx] = f
	}
	slices.SortFunc(mmproj, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })

	out := make([]Quant, 0, len(sets))
	for _, s := range sets {
		q := Quant{Name: s.name, Shards: s.total, MMProj: mmproj}
		for i := 1; i <= s.total; i++ {
			f, ok := s.shards[i]
			if !ok {
				q.Incomplete = true
				continue
			}
			q.Files = append(q.Files, f)
			q.Size += f.Size
		}
		if len(q.Files) != len(s.shards) { // shard numbers beyond N
			q.Incomplete = true
		}
		if len(q.Files) == 0 {
			continue
		}
		out = append(out, q)
	}
	slices.SortFunc(out, func(a, b Quant) int {
		ab, bb := a.Bits(), b.Bits()
		switch {
		case ab == 0 && bb != 0:
			return 1
		case bb == 0 && ab != 0:
			return -1
		}
		return cmp.Or(cmp.Compare(ab, bb), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Files[0].Path, b.Files[0].Path))
	})
	return out
}

// Find returns the level named name (case-insensitive) among levels,
// preferring a complete one.
func Find(levels []Quant, name string) (Quant, bool) {
	var found *Quant
	for i := range levels {
		if strings.EqualFold(levels[i].Name, name) {
			if !levels[i].Incomplete {
				return levels[i], true
			}
			if found == nil {
				found = &levels[i]
			}
		}
	}
	if found != nil {
		return *found, true
	}
	return Quant{}, false
}

// reQuantRef is what a quantization part of a reference may hold.
var reQuantRef = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Parse splits a model reference into a repository id and a level (upper
// case, "" when the reference names none). It accepts "owner/name",
// "owner/name:Q4_K_M" (any case), "hf.co/owner/name:Q4_K_M",
// "huggingface.co/owner/name" and URLs such as
// "https://huggingface.co/owner/name" or one of a file of the repository
// ("…/resolve/main/model-Q4_K_M.gguf", whose level is the file's). The
// level "latest" (Ollama's default) means none.
func Parse(ref string) (repo, quant string, err error) {
	s := strings.TrimSpace(ref)
	if i := strings.Index(s, "://"); i >= 0 {
		u, perr := url.Parse(s)
		if perr != nil || u.Host == "" {
			return "", "", fmt.Errorf("hub: %q is not a model reference (want owner/name[:QUANT])", ref)
		}
		s = strings.TrimPrefix(u.Path, "/")
	} else {
		lower := strings.ToLower(s)
		for _, host := range []string{"hf.co/", "huggingface.co/", "www.huggingface.co/"} {
			if strings.HasPrefix(lower, host) {
				s = s[len(host):]
				break
			}
		}
	}
	s = strings.TrimPrefix(s, "models/")
	s = strings.TrimRight(s, "/")
	parts := strings.Split(s, "/")
	if len(parts) < 2 {
		return "", "", fmt.Errorf("hub: %q is not a model reference (want owner/name[:QUANT])", ref)
	}
	name, q, hasQuant := strings.Cut(parts[1], ":")
	repo = parts[0] + "/" + name
	if err := checkRepo(repo); err != nil {
		return "", "", fmt.Errorf("hub: %q is not a model reference (want owner/name[:QUANT])", ref)
	}
	if len(parts) > 2 {
		// A page of the repository: a file's level, else none.
		if hasQuant {
			return "", "", fmt.Errorf("hub: %q is not a model reference (want owner/name[:QUANT])", ref)
		}
		if (parts[2] == "blob" || parts[2] == "resolve") && len(parts) > 4 && isGGUF(s) {
			file := strings.Join(parts[4:], "/")
			q = level(strings.TrimSuffix(reShard.ReplaceAllString(strings.TrimSuffix(path.Base(file), path.Ext(file)), ""), ".gguf"))
			if q == "" {
				dir := strings.Split(path.Dir(file), "/")
				q = level(dir[len(dir)-1])
			}
		}
		return repo, q, nil
	}
	if !hasQuant {
		return repo, "", nil
	}
	if !reQuantRef.MatchString(q) {
		return "", "", fmt.Errorf("hub: %q: %q is not a quantization level (like Q4_K_M)", ref, q)
	}
	if strings.EqualFold(q, "latest") {
		return repo, "", nil
	}
	return repo, strings.ToUpper(q), nil
}

// Recommend picks a level to download for a machine with available bytes
// of memory (RAM, or the GPU's when the model runs there). need is the
// memory a file of a level's size takes to run, engine/fit's answer
// before its header is read (fit.SizeNeed): a level fits when
// need(q.Size) <= available.
// The rule:
//
//  1. The anchor is Q4_K_M (the usual best trade of size and quality); a
//     repository without one anchors on its 4-bit level closest to it
//     (Q4_K_S, IQ4_XS, Q4_0, IQ4_NL...).
//  2. If the anchor fits, it is the pick, unless a larger level up to Q8_0
//     (Q5_K_M, Q6_K, Q8_0...) fits twice over: then the largest of those.
//     Without a 4-bit level, the smallest level from 4 bits up to Q8_0
//     that fits is the anchor.
//  3. If the anchor does not fit (or there is none), the largest smaller
//     level that fits (Q3_K_M, Q2_K, IQ3_*, IQ2_*...).
//  4. F16, BF16 and F32 are picked only when the repository has nothing
//     else and one fits.
//
// Incomplete levels are never picked, nor levels that runs refuses: runs
// says why Saji cannot run a level known by its name (fit.LevelRunnable;
// nil: every level runs). When nothing fits, Recommend returns the
// smallest complete level that runs and false; when no level runs, the
// zero Quant and false.
func Recommend(levels []Quant, available int64, need func(size int64) int64, runs func(level string) error) (Quant, bool) {
	q, ok, _ := recommend(levels, available, need, runs, nil)
	return q, ok
}

// pickRule is the step of Recommend's rule that made its pick.
type pickRule int

const (
	ruleNone     pickRule = iota // no level runs
	ruleAnchor                   // the 4-bit anchor (or the smallest level up to Q8_0) fits
	ruleLarger                   // a larger level fits twice over
	ruleSmaller                  // the anchor does not fit: the largest smaller level that does
	ruleFull                     // only full-precision levels, and one fits
	ruleNoneFits                 // nothing fits: the smallest level
)

// RecommendReason is Recommend with, for people, one sentence saying why
// it picked its level ("Q4_K_M: the usual best balance of size and
// quality, and it fits the 23 GB free."), "" when no level runs. fast,
// when not nil, says whether a level runs fast enough to be comfortable
// (fit.FastEnough): a level larger than the 4-bit anchor is taken only if
// it is, since on a slow machine the larger level's quality costs speed
// people notice.
func RecommendReason(levels []Quant, available int64, need func(size int64) int64, runs func(level string) error,
	fast func(q Quant) bool) (Quant, bool, string) {
	q, ok, rule := recommend(levels, available, need, runs, fast)
	free := units.Bytes(available)
	var why string
	switch rule {
	case ruleAnchor:
		if b := q.Bits(); b >= 4 && b < 5.5 {
			why = fmt.Sprintf("%s: the usual best balance of size and quality, and it fits the %s free.", q.Name, free)
		} else {
			why = fmt.Sprintf("%s: the smallest level here from 4 bits up, and it fits the %s free.", q.Name, free)
		}
	case ruleLarger:
		why = fmt.Sprintf("%s: better quality than the 4-bit levels; the %s free hold it twice over, and it runs fast enough.", q.Name, free)
	case ruleSmaller:
		why = fmt.Sprintf("%s: the largest level that fits the %s free; the 4-bit levels need more.", q.Name, free)
	case ruleFull:
		why = fmt.Sprintf("%s: the repository has only full-precision files, and this one fits the %s free.", q.Name, free)
	case ruleNoneFits:
		why = fmt.Sprintf("%s: the smallest level, though none fits the %s free.", q.Name, free)
	}
	return q, ok, why
}

// recommend is Recommend, with the step of the rule that picked; fast is
// RecommendReason's.
func recommend(levels []Quant, available int64, need func(size int64) int64, runs func(level string) error,
	fast func(q Quant) bool) (Quant, bool, pickRule) {
	usable := func(q Quant) bool {
		return !q.Incomplete && len(q.Files) > 0 && (runs == nil || runs(q.Name) == nil)
	}
	var cands []Quant
	for _, q := range levels {
		if usable(q) && q.Bits() > 0 {
			cands = append(cands, q)
		}
	}
	slices.SortStableFunc(cands, func(a, b Quant) int { return cmp.Compare(a.Bits(), b.Bits()) })
	if len(cands) == 0 {
		for _, q := range levels {
			if usable(q) {
				if need(q.Size) <= available {
					return q, true, ruleFull
				}
				return q, false, ruleNoneFits
			}
		}
		return Quant{}, false, ruleNone
	}
	fits := func(q Quant) bool { return need(q.Size) <= available }
	const maxBits = 8.5 // Q8_0

	anchor := -1
	if i := slices.IndexFunc(cands, func(q Quant) bool { return q.Name == "Q4_K_M" }); i >= 0 {
		anchor = i
	} else {
		best := 0.0
		for i, q := range cands {
			if b := q.Bits(); b >= 4 && b < 5.5 && (anchor < 0 || abs(b-4.89) < best) {
				anchor, best = i, abs(b-4.89)
			}
		}
	}
	if anchor < 0 {
		// No 4-bit level: the smallest level up to Q8_0 that fits stands in.
		anchor = slices.IndexFunc(cands, func(q Quant) bool { return q.Bits() >= 4 && q.Bits() <= maxBits && fits(q) })
	}
	if anchor >= 0 && fits(cands[anchor]) {
		pick, rule := cands[anchor], ruleAnchor
		for _, q := range cands[anchor+1:] {
			if q.Bits() <= maxBits && 2*need(q.Size) <= available && (fast == nil || fast(q)) {
				pick, rule = q, ruleLarger
			}
		}
		return pick, true, rule
	}
	below := anchor
	if below < 0 {
		if below = slices.IndexFunc(cands, func(q Quant) bool { return q.Bits() >= 4 }); below < 0 {
			below = len(cands)
		}
	}
	for i := below - 1; i >= 0; i-- {
		if fits(cands[i]) {
			return cands[i], true, ruleSmaller
		}
	}
	if !slices.ContainsFunc(cands, func(q Quant) bool { return q.Bits() <= maxBits }) {
		for _, q := range cands {
			if fits(q) {
				return q, true, ruleFull
			}
		}
	}
	return cands[0], false, ruleNoneFits
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
