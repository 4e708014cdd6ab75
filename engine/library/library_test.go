package library

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/synth"
	"saji/kernels/quant"
)

// tinyBytes is the synthetic "tiny" llama in Q8_0, written once.
var tinyBytes = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "saji-library-test")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	mp := filepath.Join(dir, "tiny.gguf")
	if err := synth.WriteTiny(context.Background(), mp, "q8_0", 1); err != nil {
		return nil, err
	}
	return os.ReadFile(mp)
})

// writeFile writes data to name in dir and returns its path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tinyFile writes the tiny model as name in dir.
func tinyFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := tinyBytes()
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, b)
}

// unrunnableFile writes the tiny model with a weight of a type no kernel
// computes with (synth.WriteUnrunnable).
func unrunnableFile(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "q1.gguf")
	if err := synth.WriteUnrunnable(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// unknownArchFile writes a well-formed GGUF file of an architecture no
// loader knows.
func unknownArchFile(t *testing.T, dir string) string {
	t.Helper()
	w := gguf.NewWriter()
	if err := w.Set(gguf.KeyArchitecture, "frobnicator"); err != nil {
		t.Fatal(err)
	}
	if err := w.AddTensor("w", quant.TypeF32, []int64{4}, make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "frob.gguf")
	if err := w.WriteFile(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// quiet is a logger that drops everything.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// openLib opens a library in a fresh folder.
func openLib(t *testing.T) *Library {
	t.Helper()
	l, err := OpenWith(filepath.Join(t.TempDir(), "models"), quiet)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	good := tinyFile(t, dir, "good.gguf")
	b, _ := os.ReadFile(good)
	tests := []struct {
		name string
		path string
		want error
	}{
		{"good", good, nil},
		{"not gguf", writeFile(t, dir, "notes.gguf", []byte("hello, this is not a model at all")), ErrNotGGUF},
		{"empty", writeFile(t, dir, "empty.gguf", nil), ErrNotGGUF},
		{"truncated", writeFile(t, dir, "half.gguf", b[:len(b)/2]), ErrTruncated},
		{"header cut", writeFile(t, dir, "head.gguf", b[:64]), ErrTruncated},
		{"unknown arch", unknownArchFile(t, dir), ErrUnsupportedArch},
		{"unsupported type", unrunnableFile(t, dir), model.ErrUnsupportedType},
		{"missing", filepath.Join(dir, "nope.gguf"), os.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Validate(tc.path)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if e.Name != "good" || e.Arch != "llama" || e.FileType == "" || e.Parameters <= 0 || e.ContextLength <= 0 || e.Size != int64(len(b)) {
					t.Errorf("entry %+v", e)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Validate: %v, want %v", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "library: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			var ae *ArchError
			if errors.As(err, &ae) != (tc.want == ErrUnsupportedArch) {
				t.Errorf("error %v: errors.As(*ArchError) = %v", err, ae != nil)
			}
			if ae != nil && (ae.Arch != "frobnicator" || len(ae.Supported) == 0 || !strings.Contains(err.Error(), `"frobnicator"`)) {
				t.Errorf("ArchError %+v (%q)", ae, err)
			}
			if tc.want == model.ErrUnsupportedType && (e.Arch != "llama" ||
				!strings.HasSuffix(err.Error(), "blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet")) {
				t.Errorf("entry %+v, error %q", e, err)
			}
		})
	}
}

func TestImport(t *testing.T) {
	tests := []struct {
		name string
		copy bool
	}{
		{"reference", false},
		{"copy", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := openLib(t)
			src := tinyFile(t, t.TempDir(), "Tiny-Q8.gguf")
			st, _ := os.Stat(src)
			var calls int
			var last, tot int64
			e, err := l.Import(context.Background(), src, tc.copy, func(done, total int64) {
				calls++
				last, tot = done, total
			})
			if err != nil {
				t.Fatal(err)
			}
			if e.Name != "Tiny-Q8" || e.ByReference == tc.copy || e.Size != st.Size() || e.Err != nil {
				t.Fatalf("entry %+v", e)
			}
			if tc.copy {
				if calls == 0 || last != st.Size() || tot != st.Size() {
					t.Errorf("progress: %d calls, last %d/%d, want %d", calls, last, tot, st.Size())
				}
				if e.Path != filepath.Join(l.Dir(), "Tiny-Q8.gguf") {
					t.Errorf("path %s", e.Path)
				}
				if fi, err := os.Stat(e.Path); err != nil || fi.Size() != st.Size() {
					t.Errorf("copied file: %v", err)
				}
			} else if e.Path != src {
				t.Errorf("path %s, want %s", e.Path, src)
			}
			for _, n := range dirNames(t, l.Dir()) {
				if strings.HasPrefix(n, ".") {
					t.Errorf("leftover %s in the folder", n)
				}
			}
			list, err := l.List()
			if err != nil || len(list) != 1 || list[0].Name != "Tiny-Q8" {
				t.Fatalf("List: %v %+v", err, list)
			}
			// Importing the same file again returns the same model.
			again, err := l.Import(context.Background(), e.Path, tc.copy, nil)
			if err != nil || again.Name != e.Name {
				t.Errorf("re-import: %v %+v", err, again)
			}
		})
	}
}

func TestImportRejects(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
		want error
	}{
		{"not gguf", writeFile(t, dir, "x.gguf", []byte("nope nope nope")), ErrNotGGUF},
		{"unknown arch", unknownArchFile(t, dir), ErrUnsupportedArch},
		{"unsupported type", unrunnableFile(t, dir), model.ErrUnsupportedType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := openLib(t)
			for _, cp := range []bool{false, true} {
				if _, err := l.Import(context.Background(), tc.path, cp, nil); !errors.Is(err, tc.want) {
					t.Errorf("copy=%v: %v, want %v", cp, err, tc.want)
				}
			}
			if n := dirNames(t, l.Dir()); len(n) != 0 {
				t.Errorf("folder holds %v", n)
			}
		})
	}
}

func TestImportCopyFailures(t *testing.T) {
	tests := []struct {
		name string
		full bool
		want error
	}{
		{"cancelled", false, context.Canceled},
		{"disk full", true, ErrDiskFull},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := openLib(t)
			if tc.full {
				l.free = func(string) (uint64, error) { return 1 << 20, nil }
			}
			src := tinyFile(t, t.TempDir(), "m.gguf")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := l.Import(ctx, src, true, func(done, total int64) {
				if done > 0 {
					cancel()
				}
			})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Import: %v, want %v", err, tc.want)
			}
			if n := dirNames(t, l.Dir()); len(n) != 0 {
				t.Errorf("folder holds %v after a failed copy", n)
			}
			if _, err := os.Stat(src); err != nil {
				t.Errorf("source: %v", err)
			}
		})
	}
}

func TestNameCollisions(t *testing.T) {
	l := openLib(t)
	want := []string{"m", "m-2", "m-3", "m-4"}
	for i, cp := range []bool{true, false, true, false} {
		src := tinyFile(t, t.TempDir(), "m.gguf")
		e, err := l.Import(context.Background(), src, cp, nil)
		if err != nil {
			t.Fatal(err)
		}
		if e.Name != want[i] {
			t.Errorf("import %d: name %q, want %q", i, e.Name, want[i])
		}
	}
	list, err := l.List()
	if err != nil || len(list) != len(want) {
		t.Fatalf("List: %v %+v", err, list)
	}
	for i, e := range list {
		if e.Name != want[i] || e.ByReference != (i%2 == 1) {
			t.Errorf("list[%d] = %s (ref %v)", i, e.Name, e.ByReference)
		}
	}
}

func TestDelete(t *testing.T) {
	tests := []struct {
		name string
		copy bool
	}{
		{"copied", true},
		{"reference", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := openLib(t)
			src := tinyFile(t, t.TempDir(), "m.gguf")
			e, err := l.Import(context.Background(), src, tc.copy, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.SetDefault(e.Name); err != nil {
				t.Fatal(err)
			}
			if err := l.Delete(e.Name); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(src); err != nil {
				t.Errorf("source file gone: %v", err)
			}
			if _, err := os.Stat(e.Path); tc.copy != errors.Is(err, os.ErrNotExist) {
				t.Errorf("model file after Delete: %v", err)
			}
			if _, err := l.Get(e.Name); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get after Delete: %v", err)
			}
			if err := l.Delete(e.Name); !errors.Is(err, ErrNotFound) {
				t.Errorf("second Delete: %v", err)
			}
			l2, err := OpenWith(l.Dir(), quiet)
			if err != nil {
				t.Fatal(err)
			}
			if list, _ := l2.List(); len(list) != 0 {
				t.Errorf("reopened library lists %+v", list)
			}
		})
	}
}

func TestBadNames(t *testing.T) {
	l := openLib(t)
	outside := tinyFile(t, filepath.Dir(l.Dir()), "outside.gguf")
	for _, name := range []string{"", ".", "..", "../outside", "a/b", `a\b`} {
		if err := l.Delete(name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Delete(%q): %v", name, err)
		}
		if _, err := l.Get(name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q): %v", name, err)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("file outside the folder: %v", err)
	}
}

func TestPersistence(t *testing.T) {
	l := openLib(t)
	a, err := l.Import(context.Background(), tinyFile(t, t.TempDir(), "a.gguf"), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Import(context.Background(), tinyFile(t, t.TempDir(), "b.gguf"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	temp, topP := float32(0.3), float32(0.9)
	p := Preset{System: "Be brief.", Temperature: &temp, TopP: &topP, MaxTokens: 128, Context: 2048}
	if err := l.SetPreset(a.Name, p); err != nil {
		t.Fatal(err)
	}
	if err := l.SetDefault(b.Name); err != nil {
		t.Fatal(err)
	}
	if err := l.SetDefault("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetDefault(unknown): %v", err)
	}
	bad := float32(2)
	if err := l.SetPreset(a.Name, Preset{TopP: &bad}); err == nil {
		t.Error("SetPreset accepted top_p 2")
	}
	l2, err := OpenWith(l.Dir(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	ga, err := l2.Get(a.Name)
	if err != nil {
		t.Fatal(err)
	}
	if ga.Default || ga.Preset.System != p.System || *ga.Preset.Temperature != temp || *ga.Preset.TopP != topP ||
		ga.Preset.MaxTokens != 128 || ga.Preset.Context != 2048 {
		t.Errorf("a after reopen: %+v", ga)
	}
	gb, err := l2.Get(b.Name)
	if err != nil || !gb.Default || !gb.ByReference || gb.Path != b.Path {
		t.Errorf("b after reopen: %v %+v", err, gb)
	}
	if err := l2.SetPreset(a.Name, Preset{}); err != nil {
		t.Fatal(err)
	}
	if ga, _ := l2.Get(a.Name); ga.Preset != (Preset{}) {
		t.Errorf("preset not cleared: %+v", ga.Preset)
	}
}

func TestCorruptIndex(t *testing.T) {
	tests := []struct {
		name  string
		index string
	}{
		{"garbage", "{not json"},
		{"wrong types", `{"version":1,"references":["x"]}`},
		{"future version", `{"version":99}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "models")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tinyFile(t, dir, "local.gguf")
			writeFile(t, dir, IndexFile, []byte(tc.index))
			l, err := OpenWith(dir, quiet)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			list, err := l.List()
			if err != nil || len(list) != 1 || list[0].Name != "local" || list[0].Err != nil {
				t.Fatalf("List: %v %+v", err, list)
			}
			var aside int
			for _, n := range dirNames(t, dir) {
				if strings.HasPrefix(n, IndexFile+".corrupt-") {
					aside++
				}
			}
			if aside != 1 {
				t.Errorf("%d corrupt indexes set aside, want 1", aside)
			}
			// The library works and writes a fresh index.
			if err := l.SetDefault("local"); err != nil {
				t.Fatal(err)
			}
			l2, err := OpenWith(dir, quiet)
			if err != nil {
				t.Fatal(err)
			}
			if e, err := l2.Get("local"); err != nil || !e.Default {
				t.Errorf("after recovery: %v %+v", err, e)
			}
		})
	}
}

func TestMissingReference(t *testing.T) {
	l := openLib(t)
	src := tinyFile(t, t.TempDir(), "gone.gguf")
	if _, err := l.Import(context.Background(), src, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	list, err := l.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %v %+v", err, list)
	}
	if e := list[0]; e.Name != "gone" || !e.ByReference || !errors.Is(e.Err, os.ErrNotExist) {
		t.Errorf("entry %+v", e)
	}
	e, err := l.Get("gone")
	if err != nil || e.Err == nil {
		t.Errorf("Get: %v %+v", err, e)
	}
	if err := l.Delete("gone"); err != nil {
		t.Errorf("Delete of a missing reference: %v", err)
	}
}

func TestListUnusableLocalFile(t *testing.T) {
	l := openLib(t)
	writeFile(t, l.Dir(), "junk.gguf", []byte("junk"))
	writeFile(t, l.Dir(), "readme.txt", []byte("not a model"))
	unrunnableFile(t, l.Dir())
	list, err := l.List()
	if err != nil || len(list) != 2 {
		t.Fatalf("List: %v %+v", err, list)
	}
	if !errors.Is(list[0].Err, ErrNotGGUF) {
		t.Errorf("junk entry: %+v", list[0])
	}
	// A model Saji cannot run is listed, described, with the reason.
	if e := list[1]; e.Name != "q1" || e.Arch != "llama" || !errors.Is(e.Err, model.ErrUnsupportedType) {
		t.Errorf("unrunnable entry: %+v", e)
	}
}

func TestConcurrentImports(t *testing.T) {
	l := openLib(t)
	var wg sync.WaitGroup
	names := make([]string, 4)
	errs := make([]error, 4)
	for i := range names {
		src := tinyFile(t, t.TempDir(), "c.gguf")
		wg.Go(func() {
			e, err := l.Import(context.Background(), src, i%2 == 0, nil)
			names[i], errs[i] = e.Name, err
			_, _ = l.List()
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, n := range names {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if seen[n] {
			t.Errorf("name %q given twice", n)
		}
		seen[n] = true
	}
}

// TestSplitListedOnce lists a split model's folder files as one model,
// named by its first shard: the later shards are not models of their own.
func TestSplitListedOnce(t *testing.T) {
	dir := t.TempDir()
	tinyFile(t, dir, "big-00001-of-00002.gguf")
	writeFile(t, dir, "big-00002-of-00002.gguf", []byte("the second shard's tensors"))
	tinyFile(t, dir, "other.gguf")
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	es, err := l.List()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name)
	}
	if len(names) != 2 || names[0] != "big-00001-of-00002" || names[1] != "other" {
		t.Errorf("listed %v, want the first shard and the other model", names)
	}
}

// TestSources records where files came from, keeps it across a reopen,
// and forgets it when the model is deleted or its file replaced.
func TestSources(t *testing.T) {
	l := openLib(t)
	tinyFile(t, l.Dir(), "m.gguf")
	writeFile(t, l.Dir(), "shard-00002-of-00002.gguf", []byte("rest"))
	src := Source{Repo: "acme/M-GGUF", Revision: "abc", File: "q4/m.gguf", SHA256: strings.Repeat("0", 64)}
	for _, bad := range []struct {
		file string
		src  Source
	}{
		{"../m.gguf", src},
		{"m.gguf", Source{File: "m.gguf"}},
		{"absent.gguf", src},
	} {
		if err := l.SetSource(bad.file, bad.src); err == nil {
			t.Errorf("SetSource(%q, %+v) accepted", bad.file, bad.src)
		}
	}
	if err := l.SetSource("m.gguf", src); err != nil {
		t.Fatal(err)
	}
	if err := l.SetSource("shard-00002-of-00002.gguf", Source{Repo: "acme/M-GGUF", File: "s2.gguf"}); err != nil {
		t.Fatal(err)
	}
	l2, err := OpenWith(l.Dir(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	got := l2.Sources()
	if g := got["m.gguf"]; g.Repo != src.Repo || g.Revision != "abc" || g.File != src.File || g.Size == 0 {
		t.Errorf("source after reopening: %+v", g)
	}
	// A replaced file no longer matches its source.
	writeFile(t, l.Dir(), "shard-00002-of-00002.gguf", []byte("other rest"))
	if _, ok := l2.Sources()["shard-00002-of-00002.gguf"]; ok {
		t.Error("a replaced file kept its source")
	}
	if err := l2.Delete("m"); err != nil {
		t.Fatal(err)
	}
	if _, ok := l2.Sources()["m.gguf"]; ok {
		t.Error("a deleted model kept its source")
	}
	// The same name downloaded again starts without a source.
	tinyFile(t, l.Dir(), "m.gguf")
	if _, ok := l2.Sources()["m.gguf"]; ok {
		t.Error("a new file inherited a deleted one's source")
	}
}

// TestListOrder lists names as people read them, case aside.
func TestListOrder(t *testing.T) {
	l := openLib(t)
	for _, n := range []string{"beta.gguf", "Alpha.gguf", "alpha.gguf", "Gamma.gguf"} {
		tinyFile(t, l.Dir(), n)
	}
	list, err := l.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Name)
	}
	if want := []string{"Alpha", "alpha", "beta", "Gamma"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("List order %q, want %q", got, want)
	}
}
