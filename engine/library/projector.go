package library

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"saji/engine/hub"
)

// A vision model's GGUF repository ships its image encoder as a separate
// projector file (mmproj-*.gguf, llama.cpp's clip architecture). The
// library does not list projectors as models: it pairs each model with
// the projector beside it (Entry.Projector), which a model that can see
// loads with it.

// ErrProjector is returned (wrapped) by Import for a vision projector
// file: not a model, it pairs with the model beside it.
var ErrProjector = errors.New("library: a vision projector (mmproj), not a model")

// projectorsIn lists the projector files of folder dir (full paths,
// sorted by name).
func projectorsIn(dir string) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range des {
		n := de.Name()
		if isProjector(n) && !de.IsDir() && !strings.HasPrefix(n, ".") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// isProjector reports whether a file name is a projector's: a .gguf file
// named as llama.cpp's and the hub's are (hub.IsMMProj).
func isProjector(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".gguf") && hub.IsMMProj(name)
}

// stemKey is a file name reduced for comparing a model's with its
// projector's: lower case, without .gguf, "mmproj" and the separators at
// its start ("mmproj-gemma-3-4b-it-F16.gguf": "gemma-3-4b-it-f16").
func stemKey(name string) string {
	s := strings.TrimSuffix(strings.ToLower(filepath.Base(name)), ".gguf")
	s = strings.Replace(s, "mmproj", "", 1)
	return strings.TrimLeft(s, "-_. ")
}

// minShared is the shortest name stem a model and a projector must share
// to pair when the folder holds several projectors.
const minShared = 4

// pairProjector chooses the projector of the model at path among
// candidates (the projectors of its folder): the one downloaded from the
// model's repository (sources: by file name, as Library.Sources), else the
// one whose name shares the longest stem with the model's (the F16 one
// first among equals, as hub.PickMMProj downloads), else the folder's only
// projector. "" when none pairs.
func pairProjector(path string, candidates []string, sources map[string]Source) string {
	if len(candidates) == 0 {
		return ""
	}
	if src, ok := sources[filepath.Base(path)]; ok && src.Repo != "" {
		var same []hub.File
		for _, c := range candidates {
			if s, ok := sources[filepath.Base(c)]; ok && s.Repo == src.Repo {
				same = append(same, hub.File{Path: c})
			}
		}
		if pick, ok := hub.PickMMProj(same); ok {
			return pick.Path
		}
	}
	model := stemKey(path)
	best, bestLen := []hub.File(nil), 0
	for _, c := range candidates {
		n := sharedPrefix(model, stemKey(c))
		switch {
		case n > bestLen:
			best, bestLen = []hub.File{{Path: c}}, n
		case n == bestLen && n > 0:
			best = append(best, hub.File{Path: c})
		}
	}
	if bestLen >= minShared {
		pick, _ := hub.PickMMProj(best)
		return pick.Path
	}
	if len(candidates) == 1 {
		return candidates[0]
	}
	return ""
}

// sharedPrefix returns the length of the prefix a and b share.
func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// pairAll sets the Projector of each usable entry of es, reading each
// folder once.
func (l *Library) pairAll(es []Entry) {
	folders := map[string][]string{}
	for i := range es {
		e := &es[i]
		if e.Err != nil {
			continue
		}
		dir := filepath.Dir(e.Path)
		cands, ok := folders[dir]
		if !ok {
			cands = projectorsIn(dir)
			folders[dir] = cands
		}
		sources := l.idx.Sources // the library folder's files only
		if dir != l.dir {
			sources = nil
		}
		e.Projector = pairProjector(e.Path, cands, sources)
	}
}
