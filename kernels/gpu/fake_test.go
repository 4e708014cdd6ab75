package gpu

import (
	"fmt"
	"sync"
)

// fakeDevice keeps buffers in host memory and records launches instead of
// running them: it tests what the Backend asks of a device.
type fakeDevice struct {
	mu       sync.Mutex
	next     uintptr
	mem      map[uintptr][]byte
	launches []fakeLaunch
	uploads  int
	zeros    int
	syncs    int
	failAt   int // Alloc fails once this many bytes would be live (0: never)
	live     int
	mapOK    bool
	closed   bool
}

type fakeLaunch struct {
	name        string
	grid, block Dim3
	args        []Arg
}

func newFake() *fakeDevice { return &fakeDevice{next: 0x1000, mem: map[uintptr][]byte{}} }

func (f *fakeDevice) Name() string { return "fake:0" }

func (f *fakeDevice) Alloc(n int) (Buf, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAt > 0 && f.live+n > f.failAt {
		return Buf{}, fmt.Errorf("fake: out of memory")
	}
	h := f.next
	f.next += uintptr(n) + 0x1000
	f.mem[h] = make([]byte, n)
	f.live += n
	return Buf{Handle: h, Size: n}, nil
}

func (f *fakeDevice) Free(b Buf) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m, ok := f.mem[b.Handle]; ok {
		f.live -= len(m)
		delete(f.mem, b.Handle)
	}
}

func (f *fakeDevice) Map(data []byte) (Buf, int, bool, error) {
	if !f.mapOK {
		return Buf{}, 0, false, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.next
	f.next += uintptr(len(data)) + 0x1000
	f.mem[h] = data
	return Buf{Handle: h, Size: len(data), Host: data}, 0, true, nil
}

func (f *fakeDevice) buf(b Buf, off, n int) ([]byte, error) {
	m, ok := f.mem[b.Handle]
	if !ok {
		return nil, fmt.Errorf("fake: no buffer %#x", b.Handle)
	}
	if err := CheckRange(len(m), off, n); err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	return m[off : off+n], nil
}

func (f *fakeDevice) Upload(dst Buf, off int, src []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.buf(dst, off, len(src))
	if err != nil {
		return err
	}
	copy(m, src)
	f.uploads++
	return nil
}

func (f *fakeDevice) Download(src Buf, off int, dst []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.buf(src, off, len(dst))
	if err != nil {
		return err
	}
	copy(dst, m)
	return nil
}

func (f *fakeDevice) Zero(b Buf, off, n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.buf(b, off, n)
	if err != nil {
		return err
	}
	clear(m)
	f.zeros++
	return nil
}

func (f *fakeDevice) Launch(name string, grid, block Dim3, args ...Arg) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, a := range args {
		if a.Kind == Ptr {
			if _, err := f.buf(a.Buf, a.Off, 0); err != nil {
				return fmt.Errorf("fake: %s argument %d: %w", name, i, err)
			}
		}
	}
	f.launches = append(f.launches, fakeLaunch{name, grid, block, append([]Arg(nil), args...)})
	return nil
}

func (f *fakeDevice) Sync() error { f.mu.Lock(); f.syncs++; f.mu.Unlock(); return nil }

func (f *fakeDevice) Memory() (uint64, uint64, error) { return 1 << 30, 1 << 30, nil }

func (f *fakeDevice) Close() error { f.closed = true; return nil }

// last returns the last launch.
func (f *fakeDevice) last() fakeLaunch {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.launches) == 0 {
		return fakeLaunch{}
	}
	return f.launches[len(f.launches)-1]
}
