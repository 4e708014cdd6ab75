package kvcache

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The disk tier: a folder of block files that outlives the process, so
// that a restarted app or server continues a long conversation without
// recomputing it. A file holds one full block of one KV group, named by
// its model key, chain key and group:
//
//	DIR/<model key, hex>/<chain key, hex>-<group>.kvb
//
// Files are written whole to a temporary file, synced and renamed, so a
// reader never sees half of one. The folder is bounded by a byte budget:
// past it the least recently used files go (a read refreshes a file's
// modification time, which is the LRU clock). Several processes may share
// the folder: a file another process removed is a miss, a file it is
// writing is invisible until renamed, and only temporary files older than
// staleTempAge are taken for writes cut short. A file that does not parse,
// fails its checksum or belongs to another model or cell type is ignored
// with one log line and removed.

// DefaultDiskQueue is the number of blocks waiting to be written when
// DiskOptions.Queue is 0; Enqueue refuses more (ErrDiskBusy).
const DefaultDiskQueue = 64

// staleTempAge is how old a temporary file must be before a sweep removes
// it as a write cut short: another process may be writing it right now,
// and a block of a few megabytes takes well under a second.
const staleTempAge = 10 * time.Minute

// lowWater is the share of the budget an eviction brings the folder down
// to, so that a full folder is not swept on every write.
const lowWater = 0.9

// DiskOptions configures OpenDisk.
type DiskOptions struct {
	// Dir is the cache folder, created if missing.
	Dir string
	// MaxBytes bounds the folder's block files; at least one block.
	MaxBytes int64
	// Queue is the number of blocks Enqueue holds for the writer
	// (DefaultDiskQueue for 0).
	Queue int
	// Logger receives the notes on ignored files and failed writes (nil:
	// slog.Default()).
	Logger *slog.Logger
}

// DiskStats counts a disk tier's work since OpenDisk.
type DiskStats struct {
	// Bytes and Files are what this process knows the folder holds.
	Bytes int64
	Files int
	// Hits and Misses count Get; Writes the blocks written; Busy the
	// blocks Enqueue refused for a full queue; Evicted the files removed
	// for the budget; Bad the files ignored as corrupt or foreign.
	Hits, Misses, Writes, Busy, Evicted, Bad int64
}

// Disk is a prompt cache folder. Its methods are safe for concurrent use.
type Disk struct {
	dir string
	max int64
	log *slog.Logger

	mu sync.Mutex
	// known maps the files this process knows are in the folder (path
	// relative to dir) to their sizes; total sums them.
	known  map[string]int64
	total  int64
	closed bool

	queue chan diskJob
	done  chan struct{}

	hits, misses, writes, busy, evicted, bad atomic.Int64
}

// diskJob is a block waiting for the writer; payload makes its bytes.
type diskJob struct {
	b       DiskBlock
	payload func() ([]byte, error)
}

// OpenDisk opens (creating) the cache folder, takes stock of its files
// and starts the background writer. Close stops it.
func OpenDisk(opts DiskOptions) (*Disk, error) {
	if opts.Dir == "" {
		return nil, errors.New("kvcache: no prompt cache folder")
	}
	if opts.MaxBytes <= 0 {
		return nil, fmt.Errorf("kvcache: prompt cache budget %d bytes", opts.MaxBytes)
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("kvcache: prompt cache folder: %w", err)
	}
	q := opts.Queue
	if q <= 0 {
		q = DefaultDiskQueue
	}
	d := &Disk{dir: opts.Dir, max: opts.MaxBytes, log: opts.Logger, known: make(map[string]int64),
		queue: make(chan diskJob, q), done: make(chan struct{})}
	if d.log == nil {
		d.log = slog.Default()
	}
	d.mu.Lock()
	d.sweep(false)
	d.mu.Unlock()
	go d.writer()
	return d, nil
}

// Dir returns the cache folder.
func (d *Disk) Dir() string { return d.dir }

// rel returns the path of a block's file relative to the folder.
func rel(model, chain Key, group int) string {
	return filepath.Join(hex.EncodeToString(model[:16]), fmt.Sprintf("%s-%d.kvb", hex.EncodeToString(chain[:]), group))
}

// Has reports whether the folder holds the block of chain in group of
// model, as far as this process knows or a look at the folder says.
func (d *Disk) Has(model, chain Key, group int) bool {
	r := rel(model, chain, group)
	d.mu.Lock()
	_, ok := d.known[r]
	d.mu.Unlock()
	if ok {
		return true
	}
	fi, err := os.Stat(filepath.Join(d.dir, r))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	d.note(r, fi.Size())
	return true
}

// note records a file of size bytes at r.
func (d *Disk) note(r string, size int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.total += size - d.known[r]
	d.known[r] = size
}

// forget drops r from what this process knows.
func (d *Disk) forget(r string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.total -= d.known[r]
	delete(d.known, r)
}

// Get reads the block of chain in group of model, whose cells must be of
// cellType. A missing file is a miss; a corrupt or foreign one is a miss
// too, logged once and removed. A hit refreshes the file's place in the
// LRU order.
func (d *Disk) Get(model, chain Key, group int, cellType uint32) (DiskBlock, bool) {
	r := rel(model, chain, group)
	path := filepath.Join(d.dir, r)
	data, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.log.Warn("kvcache: cannot read a prompt cache file", "path", path, "err", err)
		}
		d.forget(r)
		d.misses.Add(1)
		return DiskBlock{}, false
	}
	b, err := parseBlock(data)
	if err == nil && (b.Model != model || b.Chain != chain || b.Group != group || b.CellType != cellType) {
		err = fmt.Errorf("%w: another model's, prefix's, group's or cell type's block", errBadFile)
	}
	if err != nil {
		d.log.Warn("kvcache: ignoring and removing a prompt cache file", "path", path, "err", err)
		d.bad.Add(1)
		d.remove(r)
		d.misses.Add(1)
		return DiskBlock{}, false
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now) // the LRU clock; a file removed since is no matter
	d.note(r, int64(len(data)))
	d.hits.Add(1)
	return b, true
}

// remove deletes the file at r, which may be gone already.
func (d *Disk) remove(r string) {
	if err := os.Remove(filepath.Join(d.dir, r)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.log.Warn("kvcache: cannot remove a prompt cache file", "path", r, "err", err)
	}
	d.forget(r)
}

// Put writes b now: to a temporary file in the model's folder, synced and
// renamed into place, then evicts the least recently used files if the
// folder is over its budget.
func (d *Disk) Put(b DiskBlock) error {
	r := rel(b.Model, b.Chain, b.Group)
	path := filepath.Join(d.dir, r)
	data := b.encode()
	if int64(len(data)) > d.max {
		return fmt.Errorf("kvcache: a block of %d bytes exceeds the prompt cache budget of %d", len(data), d.max)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("kvcache: %w", err)
	}
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("kvcache: %w", err)
	}
	d.note(r, int64(len(data)))
	d.writes.Add(1)
	d.mu.Lock()
	if d.total > d.max {
		d.sweep(true)
	}
	d.mu.Unlock()
	return nil
}

// writeAtomic writes data to path through a synced temporary file in the
// same folder and a rename.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*.kvb")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// diskFile is a block file found by a sweep.
type diskFile struct {
	rel  string
	size int64
	mod  time.Time
}

// sweep takes stock of the folder: it rebuilds what this process knows
// from the files there and removes temporary files older than
// staleTempAge. With evict, when the files exceed the budget, it removes
// the least recently modified ones until they fill lowWater of it. It is
// called with d.mu held.
func (d *Disk) sweep(evict bool) {
	var files []diskFile
	models, err := os.ReadDir(d.dir)
	if err != nil {
		d.log.Warn("kvcache: cannot read the prompt cache folder", "dir", d.dir, "err", err)
		return
	}
	for _, m := range models {
		if !m.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(d.dir, m.Name()))
		if err != nil {
			continue // removed by another process meanwhile
		}
		for _, e := range entries {
			r := filepath.Join(m.Name(), e.Name())
			fi, err := e.Info()
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			switch {
			case strings.HasPrefix(e.Name(), ".tmp-"):
				if time.Since(fi.ModTime()) > staleTempAge {
					_ = os.Remove(filepath.Join(d.dir, r)) // a write cut short
				}
			case strings.HasSuffix(e.Name(), ".kvb"):
				files = append(files, diskFile{r, fi.Size(), fi.ModTime()})
			}
		}
	}
	d.known = make(map[string]int64, len(files))
	d.total = 0
	for _, f := range files {
		d.known[f.rel] = f.size
		d.total += f.size
	}
	if !evict || d.total <= d.max {
		return
	}
	slices.SortFunc(files, func(a, b diskFile) int { return a.mod.Compare(b.mod) })
	target := int64(float64(d.max) * lowWater)
	for _, f := range files {
		if d.total <= target {
			break
		}
		if err := os.Remove(filepath.Join(d.dir, f.rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		d.total -= f.size
		delete(d.known, f.rel)
		d.evicted.Add(1)
	}
}

// Errors of Enqueue.
var (
	// ErrDiskBusy reports that the writer's queue is full: try later, or
	// drop the block.
	ErrDiskBusy = errors.New("kvcache: the prompt cache writer is busy")
	// ErrDiskClosed reports that the disk tier was closed.
	ErrDiskClosed = errors.New("kvcache: the prompt cache is closed")
)

// Enqueue hands b to the background writer, which calls payload for its
// bytes and writes it. It never blocks: when the queue is full it returns
// ErrDiskBusy, and after Close ErrDiskClosed.
func (d *Disk) Enqueue(b DiskBlock, payload func() ([]byte, error)) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrDiskClosed
	}
	select {
	case d.queue <- diskJob{b, payload}:
		return nil
	default:
		d.busy.Add(1)
		return ErrDiskBusy
	}
}

// Save is Enqueue's synchronous twin: it makes the payload and writes
// the block now. After Close it returns ErrDiskClosed and writes nothing
// (the folder may be on its way out).
func (d *Disk) Save(b DiskBlock, payload func() ([]byte, error)) error {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return ErrDiskClosed
	}
	return d.save(b, payload)
}

// save makes the payload and writes the block: Save's work, and the
// writer's for each queued block, which Close lets it finish.
func (d *Disk) save(b DiskBlock, payload func() ([]byte, error)) error {
	p, err := payload()
	if err != nil {
		return fmt.Errorf("kvcache: %w", err)
	}
	b.Payload = p
	return d.Put(b)
}

// writer writes the queued blocks until Close.
func (d *Disk) writer() {
	defer close(d.done)
	for j := range d.queue {
		if err := d.save(j.b, j.payload); err != nil {
			d.log.Warn("kvcache: cannot write a prompt cache block", "err", err)
		}
	}
}

// Close writes the blocks still queued and stops the writer. Blocks
// enqueued later are dropped.
func (d *Disk) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	close(d.queue)
	d.mu.Unlock()
	<-d.done
	return nil
}

// Stats returns the disk tier's counters.
func (d *Disk) Stats() DiskStats {
	d.mu.Lock()
	st := DiskStats{Bytes: d.total, Files: len(d.known)}
	d.mu.Unlock()
	st.Hits, st.Misses, st.Writes = d.hits.Load(), d.misses.Load(), d.writes.Load()
	st.Busy, st.Evicted, st.Bad = d.busy.Load(), d.evicted.Load(), d.bad.Load()
	return st
}
