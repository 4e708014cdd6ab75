package download

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// One writer per download: two processes sharing a state folder (two
// `saji pull`s, or the app and a pull) would otherwise both write the
// same part file, and the second would keep writing after the first had
// verified and moved it. A job holds an OS lock on its lock file while it
// runs; the lock dies with its process, so a crash never leaves a job
// locked. A job that finds the lock taken waits for it, then carries on
// from what the other process left: the file at Dest (verified, not
// fetched again), or its part file and state.

// lockPoll is how often a job waiting for another process's lock tries
// again.
const lockPoll = 200 * time.Millisecond

// lockPath is the job's lock file.
func (j *Job) lockPath() string { return filepath.Join(j.m.opts.StateDir, j.key+".lock") }

// lock takes j's lock, waiting while another process holds it, and
// returns the function that releases it. waited reports whether it had to
// wait: what is on disk then changed under j.
func (m *Manager) lock(ctx context.Context, j *Job) (unlock func(), waited bool, err error) {
	for {
		unlock, err := j.tryLock()
		if err != nil || unlock != nil {
			return unlock, waited, err
		}
		if !waited {
			m.log.Info("download: another process is downloading this file; waiting for it", "id", j.id, "dest", j.Request().Dest)
			waited = true
		}
		select {
		case <-ctx.Done():
			return nil, waited, context.Cause(ctx)
		case <-time.After(lockPoll):
		}
	}
}

// tryLock takes j's lock if no other process holds it, returning the
// function that releases it, or nil when it is taken.
func (j *Job) tryLock() (unlock func(), err error) {
	path := j.lockPath()
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("download: opening the lock file: %w", err)
		}
		ok, err := tryLock(f)
		if err != nil || !ok {
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("download: locking %s: %w", path, err)
			}
			return nil, nil
		}
		// The holder before may have removed the file after this one
		// opened it: a lock on a file no longer at path locks nothing.
		if same(f, path) {
			return func() {
				_ = os.Remove(path) // before the release, so that no one locks a removed file
				f.Close()
			}, nil
		}
		f.Close()
	}
}

// TryLock takes an exclusive OS lock on f without waiting, reporting false
// when another open file holds it. The lock dies with the process, so a
// crash never leaves it taken. The desktop app's single-instance claim
// (internal/instance) holds one too.
func TryLock(f *os.File) (bool, error) { return tryLock(f) }

// same reports whether f is still the file at path.
func same(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// reload replaces j's progress with what is on disk now: the state file
// another process left, or nothing (it finished or gave up). j is running
// and holds its lock.
func (m *Manager) reload(j *Job) {
	fresh, err := m.loadJob(j.statePath())
	j.mu.Lock()
	defer j.mu.Unlock()
	if err != nil || fresh.req.URL != j.req.URL || fresh.req.Size != j.req.Size || fresh.req.SHA256 != j.req.SHA256 {
		j.resetLocked()
		return
	}
	j.total, j.sequential, j.hashRetries, j.chunks = fresh.total, fresh.sequential, fresh.hashRetries, fresh.chunks
	j.done.Store(fresh.done.Load())
}
