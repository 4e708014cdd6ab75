package app

// The views' one way of working off the UI goroutine: work runs on a
// goroutine of its own and its result reaches the widgets through fyne.Do
// (Fyne's widgets belong to the UI goroutine).

import (
	"sync"

	"fyne.io/fyne/v2"
)

// uiLatest shows the newest of the values that goroutines post, through
// one redraw at a time: values that arrive while a redraw is queued only
// replace the one it will show, so a fast stream of progress never
// floods the UI goroutine.
type uiLatest[T any] struct {
	show func(T) // on the UI goroutine

	mu      sync.Mutex
	latest  T
	pending bool
}

// newUILatest returns a uiLatest that shows values with show.
func newUILatest[T any](show func(T)) *uiLatest[T] { return &uiLatest[T]{show: show} }

// post records v and queues a redraw unless one is queued already.
func (l *uiLatest[T]) post(v T) {
	l.mu.Lock()
	l.latest = v
	queue := !l.pending
	l.pending = true
	l.mu.Unlock()
	if queue {
		fyne.Do(l.flush)
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
