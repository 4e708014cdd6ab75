package download

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// stateVersion is the version of the state file's layout.
const stateVersion = 1

// stateFile is a job's state on disk. The request's Header is not kept:
// tokens do not belong in a state folder.
type stateFile struct {
	Version     int               `json:"version"`
	ID          string            `json:"id"`
	URL         string            `json:"url"`
	Size        int64             `json:"size,omitempty"`
	SHA256      string            `json:"sha256,omitempty"`
	Dest        string            `json:"dest"`
	Meta        map[string]string `json:"meta,omitempty"`
	Created     time.Time         `json:"created"`
	Total       int64             `json:"total,omitempty"`
	Sequential  bool              `json:"sequential,omitempty"`
	HashRetries int               `json:"hash_retries,omitempty"`
	// Chunks are the byte ranges [Start, End) of the file and the bytes
	// from Start that are on disk (synced before this file was written).
	Chunks []chunkState `json:"chunks,omitempty"`
}

// chunkState is a chunk on disk.
type chunkState struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	Have  int64 `json:"have"`
}

// stateKey names a job's files after a hash of its ID (which may hold
// slashes and other characters no file name may).
func stateKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:12])
}

// statePath is the job's state file.
func (j *Job) statePath() string { return filepath.Join(j.m.opts.StateDir, j.key+".json") }

// partPath is the job's partial data.
func (j *Job) partPath() string { return filepath.Join(j.m.opts.StateDir, j.key+".part") }

// snapshotLocked returns the job's state for the disk (j.mu held). The
// chunks' progress is read before anything syncs the part file, so the
// state never claims bytes that are not on disk.
func (j *Job) snapshotLocked() stateFile {
	st := stateFile{
		Version: stateVersion, ID: j.id, URL: j.req.URL, Size: j.req.Size, SHA256: j.req.SHA256,
		Dest: j.req.Dest, Meta: j.req.Meta, Created: j.created, Total: j.total,
		Sequential: j.sequential, HashRetries: j.hashRetries,
	}
	for _, c := range j.chunks {
		st.Chunks = append(st.Chunks, chunkState{Start: c.start, End: c.end.Load(), Have: c.have.Load()})
	}
	return st
}

// saveStateLocked writes the job's state (j.mu held; the job is not
// running, so there is no part file to sync and no other writer).
func (j *Job) saveStateLocked() error {
	return writeState(j.statePath(), j.snapshotLocked())
}

// checkpoint syncs the running job's part file and then writes its
// state, so that the state names only durable bytes. It does nothing when
// no part file is open.
func (j *Job) checkpoint() error {
	j.saveMu.Lock()
	defer j.saveMu.Unlock()
	if j.part == nil {
		return nil
	}
	j.mu.Lock()
	st := j.snapshotLocked()
	j.mu.Unlock()
	if err := j.part.Sync(); err != nil {
		return fmt.Errorf("download: syncing the partial file: %w", err)
	}
	return writeState(j.statePath(), st)
}

// setPart records the open part file f (nil once it is closed) for
// checkpoint.
func (j *Job) setPart(f *os.File) {
	j.saveMu.Lock()
	j.part = f
	j.saveMu.Unlock()
}

// writeState writes st to path atomically: a synced temporary file
// renamed over the old one.
func writeState(path string, st stateFile) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".state-*.tmp")
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("download: writing state: %w", err)
	}
	return nil
}

// staleTempAge is how old a state file's temporary file must be before
// restore removes it as a write cut short. Another process that shares the
// state folder (a second `saji pull`, or the app beside a terminal) may be
// writing one right now, and removing it would fail that process's rename;
// a write of a few kilobytes takes milliseconds, so a minute-old one is dead.
const staleTempAge = time.Minute

// restore loads the jobs saved in StateDir (New).
func (m *Manager) restore() error {
	entries, err := os.ReadDir(m.opts.StateDir)
	if err != nil {
		return fmt.Errorf("download: state folder: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(m.opts.StateDir, name)
		if strings.HasPrefix(name, ".state-") && strings.HasSuffix(name, ".tmp") {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTempAge {
				_ = os.Remove(path) // a write cut short
			}
			continue
		}
		if !strings.HasSuffix(name, ".json") || e.IsDir() {
			continue
		}
		j, err := m.loadJob(path)
		if err != nil {
			m.log.Warn("download: skipping a state file", "path", path, "err", err)
			continue
		}
		m.jobs[j.id] = j
		if m.opts.AutoResume {
			m.enqueue(j)
		}
	}
	return nil
}

// loadJob reads one state file as a paused job.
func (m *Manager) loadJob(path string) (*Job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st stateFile
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, err
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("state version %d, not %d", st.Version, stateVersion)
	}
	req := Request{ID: st.ID, URL: st.URL, Size: st.Size, SHA256: st.SHA256, Dest: st.Dest, Meta: st.Meta}
	if err := req.validate(); err != nil {
		return nil, err
	}
	if filepath.Base(path) != stateKey(st.ID)+".json" {
		return nil, errors.New("the file name does not match the ID")
	}
	j := newJob(m, req, st.Created)
	j.state = Paused
	j.total = st.Total
	j.sequential = st.Sequential
	j.hashRetries = st.HashRetries
	fi, err := os.Stat(j.partPath())
	partOK := err == nil && fi.Mode().IsRegular()
	var done int64
	for _, cs := range st.Chunks {
		if cs.Start < 0 || cs.Have < 0 || (cs.End >= 0 && (cs.End < cs.Start || cs.Start+cs.Have > cs.End)) {
			return nil, fmt.Errorf("bad chunk %+v", cs)
		}
		c := &chunk{start: cs.Start}
		c.end.Store(cs.End)
		if partOK && fi.Size() >= cs.Start+cs.Have {
			c.have.Store(cs.Have)
			done += cs.Have
		}
		j.chunks = append(j.chunks, c)
	}
	j.done.Store(done)
	return j, nil
}
