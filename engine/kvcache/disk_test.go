package kvcache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// testBlock returns a block of chain i below model m with a payload of n
// bytes.
func testBlock(m Key, i, n int) DiskBlock {
	toks := []int32{int32(i), 2, 3, 4}
	p := make([]byte, n)
	for j := range p {
		p[j] = byte(i + j)
	}
	return DiskBlock{Model: m, Chain: Chain(m, toks), CellType: 1, Tokens: toks, Payload: p}
}

func openDisk(t *testing.T, dir string, max int64) *Disk {
	t.Helper()
	d, err := OpenDisk(DiskOptions{Dir: dir, MaxBytes: max, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestDiskRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := Key{1}
	b := testBlock(m, 7, 1000)
	d := openDisk(t, dir, 1<<20)
	if d.Has(m, b.Chain, 0) {
		t.Fatal("an empty folder has the block")
	}
	if err := d.Put(b); err != nil {
		t.Fatal(err)
	}
	// Another process's view: a fresh Disk over the same folder.
	d2 := openDisk(t, dir, 1<<20)
	if st := d2.Stats(); st.Files != 1 {
		t.Fatalf("the reopened folder holds %d files, want 1", st.Files)
	}
	got, ok := d2.Get(m, b.Chain, 0, 1)
	if !ok {
		t.Fatal("miss after Put")
	}
	if !slices.Equal(got.Tokens, b.Tokens) || !bytes.Equal(got.Payload, b.Payload) || got.Model != m || got.Chain != b.Chain {
		t.Fatalf("read back %+v, wrote %+v", got, b)
	}
	for _, tc := range []struct {
		name  string
		model Key
		group int
		cell  uint32
	}{{"other group", m, 1, 1}, {"other model", Key{2}, 0, 1}} {
		if _, ok := d2.Get(tc.model, b.Chain, tc.group, tc.cell); ok {
			t.Errorf("%s: hit", tc.name)
		}
	}
}

func TestDiskChains(t *testing.T) {
	toks := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9}
	a := Chains(Key{1}, toks, 4, 10)
	if len(a) != 2 {
		t.Fatalf("%d keys for two full blocks", len(a))
	}
	if a[1] != Chain(a[0], toks[4:8]) || a[0] != Chain(Key{1}, toks[:4]) {
		t.Fatal("Chains differs from Chain")
	}
	if b := Chains(Key{2}, toks, 4, 10); b[1] == a[1] {
		t.Fatal("two models agree on a prefix key")
	}
	toks[0] = 0
	if b := Chains(Key{1}, toks, 4, 10); b[1] == a[1] {
		t.Fatal("the second block's key ignores the first block")
	}
}

// TestDiskBadFiles: a corrupt, truncated, foreign or misplaced file is a
// miss, counted and removed.
func TestDiskBadFiles(t *testing.T) {
	m := Key{3}
	b := testBlock(m, 1, 500)
	good := b.encode()
	foreign := testBlock(Key{4}, 1, 500)
	cases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"truncated", good[:len(good)-1]},
		{"truncated header", good[:headerSize-3]},
		{"flipped payload bit", func() []byte { c := slices.Clone(good); c[len(c)-1] ^= 1; return c }()},
		{"flipped token", func() []byte { c := slices.Clone(good); c[headerSize] ^= 1; return c }()},
		{"bad magic", func() []byte { c := slices.Clone(good); c[0] = 'X'; return c }()},
		{"another version", func() []byte {
			c := slices.Clone(good)
			c[8] = 9
			binaryPutCRC(c)
			return c
		}()},
		{"another model's block", foreign.encode()},
		{"another cell type", func() []byte { c := b; c.CellType = 2; return c.encode() }()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := openDisk(t, t.TempDir(), 1<<20)
			path := filepath.Join(d.Dir(), rel(m, b.Chain, 0))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, ok := d.Get(m, b.Chain, 0, 1); ok {
				t.Fatal("hit on a bad file")
			}
			if st := d.Stats(); st.Bad != 1 || st.Misses != 1 {
				t.Fatalf("stats %+v, want one bad file and one miss", st)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("the bad file is still there: %v", err)
			}
		})
	}
}

// binaryPutCRC rewrites the checksum of a block file's contents.
func binaryPutCRC(file []byte) {
	c := blockCRC(file)
	file[crcOffset], file[crcOffset+1], file[crcOffset+2], file[crcOffset+3] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
}

// TestDiskEviction: past the budget, the least recently used files go,
// where a read counts as a use.
func TestDiskEviction(t *testing.T) {
	m := Key{5}
	one := int64(len(testBlock(m, 0, 1000).encode()))
	d := openDisk(t, t.TempDir(), 5*one)
	base := time.Now().Add(-time.Hour)
	var blocks []DiskBlock
	for i := range 5 {
		b := testBlock(m, i, 1000)
		blocks = append(blocks, b)
		if err := d.Put(b); err != nil {
			t.Fatal(err)
		}
		// Distinct ages, oldest first, whatever the file system's clock
		// resolution.
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(d.Dir(), rel(m, b.Chain, 0)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	// Reading block 0 makes it the most recently used.
	if _, ok := d.Get(m, blocks[0].Chain, 0, 1); !ok {
		t.Fatal("miss")
	}
	if err := d.Put(testBlock(m, 5, 1000)); err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.Bytes > 5*one || st.Evicted == 0 {
		t.Fatalf("after a sixth block: %+v, budget %d", st, 5*one)
	}
	// Down to 90% of five blocks: four stay, the oldest two (1, 2) went.
	for i, want := range []bool{true, false, false, true, true} {
		if got := d.Has(m, blocks[i].Chain, 0); got != want {
			t.Errorf("block %d kept %v, want %v", i, got, want)
		}
	}
	if err := d.Put(DiskBlock{Model: m, Payload: make([]byte, 6*one)}); err == nil {
		t.Error("a block over the whole budget was written")
	}
}

// TestDiskTwoProcesses: two Disks over one folder (two processes) write,
// read and evict the same blocks at once; no reader ever sees a half
// file, and nothing fails because the other removed or replaced a file.
func TestDiskTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	m := Key{6}
	one := int64(len(testBlock(m, 0, 4000).encode()))
	ds := []*Disk{openDisk(t, dir, 6*one), openDisk(t, dir, 6*one)}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 4 {
		wg.Go(func() {
			d := ds[w%2]
			for i := range 40 {
				b := testBlock(m, (i+w)%10, 4000)
				if err := d.Put(b); err != nil {
					errs <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
				if got, ok := d.Get(m, testBlock(m, i%10, 4000).Chain, 0, 1); ok && len(got.Payload) != 4000 {
					errs <- fmt.Errorf("writer %d read %d bytes", w, len(got.Payload))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, d := range ds {
		if st := d.Stats(); st.Bad != 0 {
			t.Errorf("disk %d saw %d bad files", i, st.Bad)
		}
	}
	// Temporary files are all renamed or removed.
	tmps, _ := filepath.Glob(filepath.Join(dir, "*", ".tmp-*"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// TestDiskEnqueue: the writer writes what is queued, Close waits for it,
// a full queue drops rather than blocks, and after Close neither Enqueue
// nor Save writes.
func TestDiskEnqueue(t *testing.T) {
	dir := t.TempDir()
	m := Key{7}
	d, err := OpenDisk(DiskOptions{Dir: dir, MaxBytes: 1 << 20, Queue: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var queued []DiskBlock
	for i := range 5 {
		b := testBlock(m, i, 100)
		p := b.Payload
		b.Payload = nil
		switch err := d.Enqueue(b, func() ([]byte, error) { <-release; return p, nil }); {
		case err == nil:
			queued = append(queued, b)
		case !errors.Is(err, ErrDiskBusy):
			t.Fatal(err)
		}
	}
	// The writer holds one job and the queue one more: the rest dropped.
	if len(queued) > 2 || d.Stats().Busy < 3 {
		t.Fatalf("%d queued, stats %+v", len(queued), d.Stats())
	}
	close(release)
	d.Close()
	if err := d.Enqueue(testBlock(m, 9, 10), nil); !errors.Is(err, ErrDiskClosed) {
		t.Fatalf("Enqueue after Close: %v", err)
	}
	late := testBlock(m, 10, 10)
	if err := d.Save(late, func() ([]byte, error) { return late.Payload, nil }); !errors.Is(err, ErrDiskClosed) {
		t.Fatalf("Save after Close: %v", err)
	}
	d2 := openDisk(t, dir, 1<<20)
	if _, ok := d2.Get(m, late.Chain, 0, 1); ok {
		t.Error("a block saved after Close was written")
	}
	for _, b := range queued {
		if _, ok := d2.Get(m, b.Chain, 0, 1); !ok {
			t.Errorf("queued block %v not written", b.Tokens)
		}
	}
}

// TestDiskStaleTemp: a sweep removes temporary files of writes cut short,
// and leaves a fresh one (another process's write in flight) alone.
func TestDiskStaleTemp(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "ab")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	stale, fresh := filepath.Join(sub, ".tmp-1.kvb"), filepath.Join(sub, ".tmp-2.kvb")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTempAge)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	openDisk(t, dir, 1<<20)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("the stale temporary file is still there")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("the fresh temporary file was removed")
	}
}

// FuzzParseBlock: the block file parser never panics, and what it accepts
// encodes back to the same bytes.
func FuzzParseBlock(f *testing.F) {
	good := testBlock(Key{8}, 3, 64).encode()
	f.Add(good)
	f.Add(good[:headerSize])
	f.Add([]byte(diskMagic))
	f.Add(DiskBlock{}.encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := parseBlock(data)
		if err != nil {
			return
		}
		if !bytes.Equal(b.encode(), data) {
			t.Fatalf("parsed %+v does not encode back to its file", b)
		}
	})
}
