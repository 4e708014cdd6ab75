package library

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"saji/engine/hardware"
)

// IndexFile is the name of the JSON index kept in the library folder.
const IndexFile = "index.json"

// ErrNotFound is wrapped by the errors about a name the library does not
// hold.
var ErrNotFound = errors.New("library: no such model")

// Preset holds a model's per-model defaults. Zero (or nil) fields are
// unset and leave the server's defaults in place.
type Preset struct {
	System      string   `json:"system,omitempty"`
	Temperature *float32 `json:"temperature,omitempty"`
	TopP        *float32 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Context     int      `json:"context,omitempty"`
}

// validate rejects values no sampler accepts.
func (p Preset) validate() error {
	switch {
	case p.Temperature != nil && (*p.Temperature < 0 || *p.Temperature != *p.Temperature):
		return fmt.Errorf("library: preset temperature %v is negative", *p.Temperature)
	case p.TopP != nil && !(*p.TopP > 0 && *p.TopP <= 1):
		return fmt.Errorf("library: preset top_p %v is outside (0, 1]", *p.TopP)
	case p.MaxTokens < 0:
		return fmt.Errorf("library: preset max_tokens %d is negative", p.MaxTokens)
	case p.Context < 0:
		return fmt.Errorf("library: preset context %d is negative", p.Context)
	}
	return nil
}

// Entry describes one model of the library.
type Entry struct {
	// Name identifies the model in the library: the file name without
	// .gguf, made unique with a "-2", "-3"... suffix.
	Name string
	// Path is the model file's absolute path.
	Path string
	// ByReference says that the file lives outside the library folder
	// and was added by reference.
	ByReference bool
	// Size is the model's size in bytes (all shards); Modified the
	// file's modification time.
	Size     int64
	Modified time.Time
	// Arch, FileType, Parameters and ContextLength come from the GGUF
	// header.
	Arch          string
	FileType      string
	Parameters    int64
	ContextLength int
	// Shards is the number of files of a split model (1 otherwise).
	Shards int
	// Projector is the vision projector (mmproj) paired with the model,
	// found beside it (see pairProjector): a model loaded with it can
	// see. "" for none.
	Projector string
	// Preset holds the model's defaults; Default says it is the default
	// model.
	Preset  Preset
	Default bool
	// Err, when set, says why the model cannot be used: a referenced
	// file that disappeared, a file that is not a loadable model.
	Err error
}

// index is the persisted part of the library.
type index struct {
	Version int `json:"version"`
	// Default is the default model's name ("" for none).
	Default string `json:"default,omitempty"`
	// References are the models added by reference, by name.
	References map[string]string `json:"references,omitempty"`
	// Presets are the per-model presets, by name.
	Presets map[string]Preset `json:"presets,omitempty"`
	// Aliases are other names of models (the hf.co/OWNER/REPO:QUANT a
	// model was pulled as), to the models' names.
	Aliases map[string]string `json:"aliases,omitempty"`
	// Sources say where the folder's downloaded files came from, by file
	// name in the folder. An index written before they were kept has
	// none: its files' origin is unknown, which is what an absent entry
	// means, so reading it needs no migration.
	Sources map[string]Source `json:"sources,omitempty"`
}

// Source says where a file of the library folder was downloaded from.
type Source struct {
	// Repo, Revision and File name the file on the hub: the repository
	// ("owner/name"), the commit it was taken at and its path there.
	Repo     string `json:"repo"`
	Revision string `json:"revision,omitempty"`
	File     string `json:"file"`
	// SHA256 is the file's digest as the hub listed it ("" when unknown),
	// Size its size: a file of that name replaced since no longer
	// matches its source.
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size"`
}

// indexVersion is the version of the index format written.
const indexVersion = 1

// cached is the header information of a file, valid while its size and
// modification time are unchanged.
type cached struct {
	size  int64
	mod   time.Time
	entry Entry
	err   error
}

// Library is a model store over one folder. It is safe for concurrent use.
type Library struct {
	dir string
	log *slog.Logger
	// free reports the free space of a folder (hardware.DiskFree); a
	// field so that tests can stand in a full disk.
	free func(dir string) (uint64, error)

	mu    sync.Mutex
	idx   index
	cache map[string]cached
}

// Open opens the library in dir, creating the folder if needed and reading
// its index. A corrupt index is renamed aside with a warning and the
// library starts with an empty one: the folder's own files stay listed.
func Open(dir string) (*Library, error) {
	return OpenWith(dir, slog.Default())
}

// OpenWith is Open with the logger that receives the library's warnings.
func OpenWith(dir string, log *slog.Logger) (*Library, error) {
	if dir == "" {
		return nil, errors.New("library: no folder given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	if log == nil {
		log = slog.Default()
	}
	l := &Library{dir: abs, log: log, free: hardware.DiskFree, cache: map[string]cached{}}
	if err := l.load(); err != nil {
		return nil, err
	}
	return l, nil
}

// Dir returns the library's folder.
func (l *Library) Dir() string { return l.dir }

// load reads the index, setting a corrupt one aside.
func (l *Library) load() error {
	p := filepath.Join(l.dir, IndexFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		l.idx = index{Version: indexVersion}
		return nil
	}
	if err != nil {
		return fmt.Errorf("library: %w", err)
	}
	var idx index
	if err := json.Unmarshal(b, &idx); err != nil || idx.Version > indexVersion {
		if err == nil {
			err = fmt.Errorf("index version %d is newer than this Saji's %d", idx.Version, indexVersion)
		}
		aside := fmt.Sprintf("%s.corrupt-%s", p, time.Now().UTC().Format("20060102T150405.000000000"))
		if rerr := os.Rename(p, aside); rerr != nil {
			return fmt.Errorf("library: index %s is unreadable (%v) and cannot be set aside: %w", p, err, rerr)
		}
		l.log.Warn("library: unreadable index set aside; models added by reference and presets are forgotten",
			"index", p, "saved_as", aside, "err", err)
		idx = index{}
	}
	idx.Version = indexVersion
	for name, path := range idx.References {
		if checkName(name) != nil || !filepath.IsAbs(path) {
			l.log.Warn("library: index entry ignored", "name", name, "path", path)
			delete(idx.References, name)
		}
	}
	l.idx = idx
	return nil
}

// save writes the index atomically: a synced temporary file renamed over
// the old one. Called with mu held.
func (l *Library) save() error {
	b, err := json.MarshalIndent(l.idx, "", "  ")
	if err != nil {
		return fmt.Errorf("library: %w", err)
	}
	return writeAtomic(filepath.Join(l.dir, IndexFile), b)
}

// writeAtomic replaces path with data, never leaving a partial file.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("library: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("library: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("library: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("library: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("library: %w", err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable where the platform allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// checkName rejects names that could reach outside the folder.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) {
		return fmt.Errorf("%w: invalid name %q", ErrNotFound, name)
	}
	return nil
}

// localPath is the path of the folder model called name.
func (l *Library) localPath(name string) string { return filepath.Join(l.dir, name+".gguf") }

// laterShard matches the file name of a split model's second and later
// shards ("<prefix>-00002-of-00003.gguf"): they are part of the model that
// the first shard names, not models of their own.
var laterShard = regexp.MustCompile(`-(\d{5})-of-\d{5}\.gguf$`)

// localNames lists the names of the folder's models: its visible *.gguf
// files, a split model once, by its first shard, and not the vision
// projectors (paired with their models instead).
func (l *Library) localNames() ([]string, error) {
	des, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	var names []string
	for _, de := range des {
		n := de.Name()
		if strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".gguf") || de.IsDir() || isProjector(n) {
			continue
		}
		if m := laterShard.FindStringSubmatch(n); m != nil && m[1] != "00001" {
			continue
		}
		names = append(names, strings.TrimSuffix(n, ".gguf"))
	}
	return names, nil
}

// List returns the folder's models and the references, by name (case
// aside). A
// referenced file that disappeared, or a file that is not a usable model,
// is listed with Err set.
func (l *Library) List() ([]Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	local, err := l.localNames()
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(local)+len(l.idx.References))
	for _, n := range local {
		out = append(out, l.entry(n, l.localPath(n), false))
	}
	for n, p := range l.idx.References {
		if slices.Contains(local, n) {
			continue // a folder file shadows a stale reference of its name
		}
		out = append(out, l.entry(n, p, true))
	}
	// As people read names: case aside ("llama" beside "Llama"), then
	// exactly, so that the order is the same every time.
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.Name, b.Name))
	})
	l.pairAll(out)
	return out, nil
}

// Get returns the model called name. A model that is listed but unusable
// is returned with Err set and a nil error; an unknown name is an error
// wrapping ErrNotFound.
func (l *Library) Get(name string) (Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.get(name)
}

// get is Get with mu held; an alias gives the entry of its model.
func (l *Library) get(name string) (Entry, error) {
	if to, ok := l.idx.Aliases[name]; ok {
		name = to
	}
	if err := checkName(name); err != nil {
		return Entry{}, err
	}
	var es []Entry
	if p := l.localPath(name); fileExists(p) && !isProjector(filepath.Base(p)) {
		es = []Entry{l.entry(name, p, false)}
	} else if p, ok := l.idx.References[name]; ok {
		es = []Entry{l.entry(name, p, true)}
	} else {
		return Entry{}, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	l.pairAll(es)
	return es[0], nil
}

// entry describes the model name at path, reading its header unless the
// cache holds it. Called with mu held.
func (l *Library) entry(name, path string, byRef bool) Entry {
	e := Entry{Name: name, Path: path, ByReference: byRef}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && byRef:
		e.Err = fmt.Errorf("library: the referenced file %s is missing (moved or deleted?): %w", path, os.ErrNotExist)
	case err != nil:
		e.Err = fmt.Errorf("library: %w", err)
	default:
		c, ok := l.cache[path]
		if !ok || c.size != st.Size() || !c.mod.Equal(st.ModTime()) {
			v, verr := Validate(path)
			c = cached{size: st.Size(), mod: st.ModTime(), entry: v, err: verr}
			l.cache[path] = c
		}
		e = c.entry
		e.Name, e.Path, e.ByReference, e.Err = name, path, byRef, c.err
		e.Modified = st.ModTime()
		if e.Size == 0 {
			e.Size = st.Size()
		}
	}
	if p, ok := l.idx.Presets[name]; ok {
		e.Preset = p
	}
	e.Default = l.idx.Default == name
	return e
}

// fileExists says whether path names an existing regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// Delete removes the model called name (or an alias of it): a copied
// model's file is deleted; a reference is only forgotten, its file left
// where it is. The model's preset, default status and aliases go with it.
func (l *Library) Delete(name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if to, ok := l.idx.Aliases[name]; ok {
		name = to
	}
	if err := checkName(name); err != nil {
		return err
	}
	_, isRef := l.idx.References[name]
	p := l.localPath(name)
	switch {
	case fileExists(p):
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("library: %w", err)
		}
		delete(l.cache, p)
	case isRef:
		delete(l.cache, l.idx.References[name])
	default:
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	delete(l.idx.References, name)
	delete(l.idx.Presets, name)
	delete(l.idx.Sources, filepath.Base(p))
	maps.DeleteFunc(l.idx.Aliases, func(_, to string) bool { return to == name })
	if l.idx.Default == name {
		l.idx.Default = ""
	}
	return l.save()
}

// SetDefault makes name the default model; "" clears the default.
func (l *Library) SetDefault(name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if name != "" {
		if _, err := l.get(name); err != nil {
			return err
		}
	}
	l.idx.Default = name
	return l.save()
}

// SetPreset stores the preset of the model called name; a zero Preset
// removes it.
func (l *Library) SetPreset(name string, p Preset) error {
	if err := p.validate(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.get(name); err != nil {
		return err
	}
	if p == (Preset{}) {
		delete(l.idx.Presets, name)
	} else {
		if l.idx.Presets == nil {
			l.idx.Presets = map[string]Preset{}
		}
		l.idx.Presets[name] = p
	}
	return l.save()
}

// SetSource records that the file called file in the library folder (a
// base name: a model's file or a split model's shard) was downloaded from
// src. The file must be there; its size is recorded with it.
func (l *Library) SetSource(file string, src Source) error {
	if err := checkName(file); err != nil {
		return err
	}
	if src.Repo == "" || src.File == "" {
		return fmt.Errorf("library: the source of %s names no repository or file", file)
	}
	st, err := os.Stat(filepath.Join(l.dir, file))
	if err != nil {
		return fmt.Errorf("library: %w", err)
	}
	src.Size = st.Size()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.idx.Sources == nil {
		l.idx.Sources = map[string]Source{}
	}
	l.idx.Sources[file] = src
	return l.save()
}

// Sources returns the recorded origins of the files in the library
// folder, by file name: a file deleted or replaced (of another size)
// since is left out.
func (l *Library) Sources() map[string]Source {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]Source, len(l.idx.Sources))
	for file, src := range l.idx.Sources {
		if st, err := os.Stat(filepath.Join(l.dir, file)); err == nil && st.Mode().IsRegular() && st.Size() == src.Size {
			out[file] = src
		}
	}
	return out
}
