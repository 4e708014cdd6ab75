package download

import (
	"context"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// State is where a job stands.
type State int

// The states of a job. Done, Failed and Cancelled end it (a failed job
// can be resumed).
const (
	Queued    State = iota // waiting for a free slot
	Running                // fetching
	Paused                 // stopped by Pause, Close or a restart; resumable
	Verifying              // hashing the complete file
	Done                   // the file is at Dest
	Failed                 // stopped by an error (Progress.Err); resumable
	Cancelled              // stopped by Cancel; its data is gone
)

// String names the state for people and logs.
func (s State) String() string {
	switch s {
	case Queued:
		return "queued"
	case Running:
		return "downloading"
	case Paused:
		return "paused"
	case Verifying:
		return "verifying"
	case Done:
		return "done"
	case Failed:
		return "failed"
	case Cancelled:
		return "cancelled"
	}
	return "unknown"
}

// Active reports whether a job in state s is under way: queued, running
// or verifying.
func (s State) Active() bool { return s == Queued || s == Running || s == Verifying }

// final reports whether no more events follow s.
func (s State) final() bool { return s == Done || s == Failed || s == Cancelled }

// Progress is a snapshot of a job.
type Progress struct {
	State State
	// Done and Total are the bytes on disk and the file's size (0 while
	// unknown). While Verifying, Done counts the bytes hashed.
	Done, Total int64
	// Rate is the smoothed transfer (or hashing) rate in bytes per second;
	// ETA is the time left at that rate (0 when unknown).
	Rate float64
	ETA  time.Duration
	// Err is why the job failed (Failed), or ErrCancelled.
	Err error
	// Attempts counts the requests retried after an error, and the whole
	// file fetched again after a checksum mismatch.
	Attempts int
}

// want is what was asked of a running job, applied when it stops.
type want int

const (
	wantNone    want = iota
	wantPause        // Pause
	wantRestart      // Pause, then Resume (or Start) before it stopped
	wantCancel       // Cancel
)

// progressEvery is the interval of progress events and rate samples.
const progressEvery = 100 * time.Millisecond

// rateWindow is the time constant of the rate's exponential smoothing.
const rateWindow = 3 * time.Second

// Job is one download. Its methods are safe for concurrent use.
type Job struct {
	m       *Manager
	id      string
	key     string // the base name of its files in StateDir
	created time.Time

	done     atomic.Int64 // bytes on disk
	hashed   atomic.Int64 // bytes hashed while Verifying
	attempts atomic.Int64
	saveMu   sync.Mutex // serializes checkpoints; guards part
	part     *os.File   // the open part file while running

	mu          sync.Mutex
	req         Request
	state       State
	err         error
	want        want
	cancel      context.CancelCauseFunc // while running
	closed      bool                    // the Manager was closed
	total       int64                   // 0 while unknown
	chunks      []*chunk                // nil until laid out
	sequential  bool                    // one stream from 0 (the server ignores Range, or the size is unknown)
	hashRetries int                     // whole-file refetches after a checksum mismatch
	locked      bool                    // this process holds the job's lock (see lock.go)
	changed     chan struct{}           // closed and replaced at every state change
	subs        map[int]chan Progress
	nextSub     int
	// rate sampling, by the progress monitor
	rate       float64
	lastSample time.Time
	lastBytes  int64
}

// chunk is one byte range [start, end) of the file and how much of it,
// from start, is on disk. end is -1 while the size is unknown. Only the
// worker fetching a chunk writes it; checkpoints read it.
type chunk struct {
	start int64
	end   atomic.Int64
	have  atomic.Int64
}

func newJob(m *Manager, req Request, created time.Time) *Job {
	return &Job{
		m: m, id: req.ID, key: stateKey(req.ID), created: created,
		req: req, total: req.Size, changed: make(chan struct{}), subs: make(map[int]chan Progress),
	}
}

// ID returns the request's ID.
func (j *Job) ID() string { return j.id }

// Request returns a copy of the job's request. A job restored from disk
// has no Header.
func (j *Job) Request() Request {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.req.clone()
}

// Pause stops a queued or running job, keeping its data for Resume. A
// running job stops at once; its state is saved first.
func (j *Job) Pause() {
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	switch j.state {
	case Queued:
		j.m.dequeueLocked(j)
		j.setStateLocked(Paused)
	case Running, Verifying:
		if j.want != wantCancel {
			j.want = wantPause
			j.cancel(errPaused)
		}
	}
}

// Resume queues a paused or failed job again (it resumes where it
// stopped). It does nothing to a job in any other state.
func (j *Job) Resume() {
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.m.closed {
		return
	}
	switch j.state {
	case Paused, Failed:
		j.m.enqueueLocked(j)
	case Running, Verifying:
		if j.want == wantPause {
			j.want = wantRestart
		}
	}
}

// Cancel stops the job and deletes its partial data and its state; the
// Manager forgets it. A finished job is left alone.
func (j *Job) Cancel() {
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	switch j.state {
	case Running, Verifying:
		j.want = wantCancel
		j.cancel(ErrCancelled)
		return
	case Queued:
		j.m.dequeueLocked(j)
	case Paused, Failed:
	default:
		return
	}
	j.removeFilesLocked()
	delete(j.m.jobs, j.id)
	j.err = ErrCancelled
	j.setStateLocked(Cancelled)
}

// Progress returns a snapshot of the job.
func (j *Job) Progress() Progress {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.progressLocked()
}

// Subscribe returns a channel of progress events and a function that
// ends the subscription. Events come on every state change and at most
// about ten times a second while the job runs; a slow reader misses the
// intermediate ones but always gets the latest. The channel is closed
// when the job is done, failed or cancelled (after that event), when the
// Manager is closed, or by the returned function.
func (j *Job) Subscribe() (<-chan Progress, func()) {
	ch := make(chan Progress, 1)
	j.mu.Lock()
	defer j.mu.Unlock()
	ch <- j.progressLocked()
	if j.state.final() || j.closed {
		close(ch)
		return ch, func() {}
	}
	id := j.nextSub
	j.nextSub++
	j.subs[id] = ch
	return ch, func() {
		j.mu.Lock()
		defer j.mu.Unlock()
		if c, ok := j.subs[id]; ok {
			delete(j.subs, id)
			close(c)
		}
	}
}

// Wait blocks until the job is done (nil), failed (its error) or
// cancelled (ErrCancelled), or until ctx ends. A paused job keeps Wait
// waiting; after the Manager's Close, Wait returns ErrClosed.
func (j *Job) Wait(ctx context.Context) error {
	for {
		j.mu.Lock()
		st, err, closed, ch := j.state, j.err, j.closed, j.changed
		j.mu.Unlock()
		switch {
		case st == Done:
			return nil
		case st == Failed, st == Cancelled:
			return err
		case closed:
			return ErrClosed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// progressLocked builds a snapshot (j.mu held).
func (j *Job) progressLocked() Progress {
	p := Progress{
		State:    j.state,
		Done:     j.done.Load(),
		Total:    j.total,
		Err:      j.err,
		Attempts: int(j.attempts.Load()),
	}
	if j.state == Verifying {
		p.Done = j.hashed.Load()
	}
	if j.state == Running || j.state == Verifying {
		p.Rate = j.rate
		if j.rate >= 1 && p.Total > p.Done {
			p.ETA = time.Duration(float64(p.Total-p.Done) / j.rate * float64(time.Second)).Round(time.Second)
		}
	}
	return p
}

// setStateLocked moves j to st, wakes Wait and tells the subscribers
// (j.mu held).
func (j *Job) setStateLocked(st State) {
	if st != j.state && (st == Running || st == Verifying) {
		j.rate, j.lastSample, j.lastBytes = 0, time.Now(), j.currentBytes(st)
	}
	j.state = st
	j.notifyLocked()
}

// notifyLocked wakes Wait and publishes the current progress, closing the
// subscriptions if nothing more will come (j.mu held).
func (j *Job) notifyLocked() {
	close(j.changed)
	j.changed = make(chan struct{})
	j.publishLocked()
	j.m.changed()
	if j.state.final() || j.closed {
		for id, ch := range j.subs {
			close(ch)
			delete(j.subs, id)
		}
	}
}

// publishLocked hands the current progress to every subscriber without
// blocking: an unread older event is replaced (j.mu held).
func (j *Job) publishLocked() {
	if len(j.subs) == 0 {
		return
	}
	p := j.progressLocked()
	for _, ch := range j.subs {
		select {
		case <-ch:
		default:
		}
		ch <- p // cannot block: the buffer is empty and only publishLocked sends
	}
}

// currentBytes is the count the rate follows in state st.
func (j *Job) currentBytes(st State) int64 {
	if st == Verifying {
		return j.hashed.Load()
	}
	return j.done.Load()
}

// tick samples the rate and publishes progress (the monitor's beat).
func (j *Job) tick(now time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.state != Running && j.state != Verifying {
		return
	}
	b := j.currentBytes(j.state)
	if dt := now.Sub(j.lastSample); dt > 0 {
		inst := float64(b-j.lastBytes) / dt.Seconds()
		alpha := 1 - math.Exp(-float64(dt)/float64(rateWindow))
		j.rate += alpha * (inst - j.rate)
		j.lastSample, j.lastBytes = now, b
	}
	j.publishLocked()
	j.m.changed()
}

// resetLocked forgets the downloaded data (j.mu held; the job is not
// running).
func (j *Job) resetLocked() {
	j.chunks = nil
	j.sequential = false
	j.hashRetries = 0
	j.total = j.req.Size
	j.done.Store(0)
}

// removeFilesLocked deletes the job's .part and state files, unless
// another process is running the same job: they are its files then.
func (j *Job) removeFilesLocked() {
	if !j.locked {
		unlock, err := j.tryLock()
		if unlock == nil {
			j.m.log.Info("download: another process is downloading this file; leaving its files", "id", j.id, "err", err)
			return
		}
		defer unlock()
	}
	for _, p := range []string{j.partPath(), j.statePath()} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			j.m.log.Warn("download: removing", "path", p, "err", err)
		}
	}
}
