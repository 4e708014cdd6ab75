package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// pool is a persistent set of worker goroutines that run the parts of one
// operation at a time. The caller of run takes parts too, so a pool for n
// threads has n-1 workers. Between operations a worker spins for a short
// while (an operation of a decode step follows the previous one within
// microseconds) and then parks on a channel, so an idle backend costs
// nothing. Parts are handed out through an atomic counter: a thread that
// finishes early takes the next part.
type pool struct {
	workers int
	mu      sync.Mutex // one operation at a time

	gen   atomic.Uint64 // incremented for each operation
	fn    atomic.Pointer[func(part int)]
	parts atomic.Int64
	next  atomic.Int64
	done  atomic.Int64 // workers finished with the current operation
	quit  atomic.Bool

	sleeping []atomic.Bool
	wake     []chan struct{}
}

// spinFor is how long an idle worker polls for the next operation before
// it parks.
const spinFor = 200 * time.Microsecond

// newPool starts threads-1 workers.
func newPool(threads int) *pool {
	p := &pool{workers: max(0, threads-1)}
	p.sleeping = make([]atomic.Bool, p.workers)
	p.wake = make([]chan struct{}, p.workers)
	for w := range p.workers {
		p.wake[w] = make(chan struct{}, 1)
		go p.work(w)
	}
	return p
}

// close stops the workers.
func (p *pool) close() {
	p.quit.Store(true)
	p.gen.Add(1)
	for w := range p.workers {
		select {
		case p.wake[w] <- struct{}{}:
		default:
		}
	}
}

func (p *pool) work(w int) {
	last := uint64(0)
	for {
		last = p.await(w, last)
		if p.quit.Load() {
			return
		}
		p.take()
		p.done.Add(1)
	}
}

// await waits for an operation newer than last and returns its number.
func (p *pool) await(w int, last uint64) uint64 {
	for {
		start := time.Now()
		for i := 0; ; i++ {
			if g := p.gen.Load(); g != last {
				return g
			}
			if i%256 == 255 {
				if time.Since(start) > spinFor {
					break
				}
				runtime.Gosched()
			}
		}
		p.sleeping[w].Store(true)
		if g := p.gen.Load(); g != last {
			if !p.sleeping[w].CompareAndSwap(true, false) {
				<-p.wake[w] // run already sent the token: take it
			}
			return g
		}
		// Park until run wakes this worker. The timeout is a safety net,
		// not the mechanism: a wakeup lost (an arm64 test under
		// qemu-user hung here once, the worker parked while run waited
		// for it) then costs parkFor instead of a hang. On a timeout the
		// worker takes its sleeping flag back, or, if run has just taken
		// it, the token run is sending.
		t := time.NewTimer(parkFor)
		select {
		case <-p.wake[w]:
			t.Stop()
		case <-t.C:
			if !p.sleeping[w].CompareAndSwap(true, false) {
				<-p.wake[w]
			}
		}
	}
}

// parkFor bounds how long a parked worker sleeps before it checks for
// work by itself.
const parkFor = 20 * time.Millisecond

// take runs parts of the current operation until none is left.
func (p *pool) take() {
	fn, n := *p.fn.Load(), p.parts.Load()
	for {
		i := p.next.Add(1) - 1
		if i >= n {
			return
		}
		fn(int(i))
	}
}

// run calls fn(i) for every i in [0, parts) across the pool and returns
// when all calls have returned. It reports false, running nothing, when
// the pool is busy (a concurrent or nested operation).
func (p *pool) run(parts int, fn func(part int)) bool {
	if !p.mu.TryLock() {
		return false
	}
	defer p.mu.Unlock()
	p.fn.Store(&fn)
	p.parts.Store(int64(parts))
	p.next.Store(0)
	p.done.Store(0)
	p.gen.Add(1)
	for w := range p.workers {
		if p.sleeping[w].CompareAndSwap(true, false) {
			p.wake[w] <- struct{}{}
		}
	}
	p.take()
	for i := 0; p.done.Load() != int64(p.workers); i++ {
		if i%64 == 63 {
			runtime.Gosched()
		}
	}
	return true
}
