package app

// The views' one way of working off the UI goroutine: work runs on a
// goroutine of its own and its result reaches the widgets through fyne.Do
// (Fyne's widgets belong to the UI goroutine).

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"fyne.io/fyne/v2"
)

// worker runs a view's background work and applies its results on the UI
// goroutine. The zero value runs each piece of work on a goroutine of its
// own.
type worker struct {
	// lock, when not nil, is held around every update of the view, so
	// that tests can tap its buttons from their goroutine meanwhile.
	lock sync.Locker
	// serial runs the work one piece at a time, in the order queued (a
	// start, then a stop of the same server).
	serial bool

	busy    sync.WaitGroup // the work queued or running, with its updates
	mu      sync.Mutex     // guards queue and working
	queue   []func()
	working bool
}

// run runs work off the UI goroutine, then the update it returns (if not
// nil) on the UI goroutine; wait returns once the update has been
// applied.
func (w *worker) run(work func() (update func())) {
	w.busy.Add(1)
	job := func() {
		defer w.busy.Done()
		defer recoverTo(new(error), "background work")
		if update := work(); update != nil {
			w.apply(update)
		}
	}
	if !w.serial {
		go job()
		return
	}
	w.mu.Lock()
	w.queue = append(w.queue, job)
	start := !w.working
	w.working = true
	w.mu.Unlock()
	if start {
		go w.drain()
	}
}

// drain runs the serial queue until it is empty.
func (w *worker) drain() {
	for {
		w.mu.Lock()
		if len(w.queue) == 0 {
			w.working = false
			w.mu.Unlock()
			return
		}
		job := w.queue[0]
		w.queue = w.queue[1:]
		w.mu.Unlock()
		job()
	}
}

// apply runs the update f on the UI goroutine, holding the view's lock,
// and returns once it ran.
func (w *worker) apply(f func()) { fyne.DoAndWait(w.locked(f)) }

// do runs f on the UI goroutine, holding the view's lock, without
// waiting: work calls it for the updates it makes on the way (progress).
func (w *worker) do(f func()) { fyne.Do(w.locked(f)) }

// locked returns f holding the view's lock.
func (w *worker) locked(f func()) func() {
	if w.lock == nil {
		return f
	}
	return func() {
		w.lock.Lock()
		defer w.lock.Unlock()
		f()
	}
}

// wait waits until the work queued with run has ended and its updates
// have been applied. It must not be called on the UI goroutine.
func (w *worker) wait() { w.busy.Wait() }

// uiLatest shows the newest of the values that goroutines post, through
// one redraw at a time: values that arrive while a redraw is queued only
// replace the one it will show, so a fast stream of progress never
// floods the UI goroutine.
type uiLatest[T any] struct {
	w    *worker // whose do shows the values (holding the view's lock)
	show func(T) // on the UI goroutine

	mu      sync.Mutex
	latest  T
	pending bool
}

// newUILatest returns a uiLatest that shows values with show, through w's
// do.
func newUILatest[T any](w *worker, show func(T)) *uiLatest[T] {
	return &uiLatest[T]{w: w, show: show}
}

// post records v and queues a redraw unless one is queued already.
func (l *uiLatest[T]) post(v T) {
	l.mu.Lock()
	l.latest = v
	queue := !l.pending
	l.pending = true
	l.mu.Unlock()
	if queue {
		l.w.do(l.flush)
	}
}

// flush shows the newest value.
func (l *uiLatest[T]) flush() {
	l.mu.Lock()
	v := l.latest
	l.pending = false
	l.mu.Unlock()
	l.show(v)
}

// recoverTo, deferred in a function that runs work off the UI goroutine,
// turns a panic into an error in *err and an ERROR log with its stack:
// a bug in one task must not take the app down, and the person's work
// with it. what names the task.
func recoverTo(err *error, what string) {
	r := recover()
	if r == nil {
		return
	}
	slog.Error("app: a background task panicked", "task", what, "panic", r, "stack", string(debug.Stack()))
	*err = fmt.Errorf("app: %s failed on a bug in Saji (%v); the log has the details", what, r)
}
