package cuda

import (
	"errors"
	"strings"
	"testing"
	"unsafe"
)

// fakeDriver is a driver whose error functions answer like CUDA's.
func fakeDriver() *driver {
	names := map[result]string{2: "CUDA_ERROR_OUT_OF_MEMORY\x00", 1: "CUDA_ERROR_INVALID_VALUE\x00"}
	descs := map[result]string{2: "out of memory\x00", 1: "invalid argument\x00"}
	text := func(m map[result]string) func(result, *unsafe.Pointer) result {
		return func(r result, p *unsafe.Pointer) result {
			s, ok := m[r]
			if !ok {
				return cudaErrorInvalidValue
			}
			*p = unsafe.Pointer(unsafe.StringData(s))
			return cudaSuccess
		}
	}
	return &driver{lib: "fake", getErrorName: text(names), getErrorString: text(descs)}
}

func TestCheck(t *testing.T) {
	d := fakeDriver()
	tests := []struct {
		fn   string
		r    result
		want string
		oom  bool
	}{
		{"cuMemAlloc_v2", 2, "cuda: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)", true},
		{"cuLaunchKernel", 1, "cuda: cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (invalid argument)", false},
		{"cuInit", 999, "cuda: cuInit: CUDA error 999", false},
	}
	for _, tt := range tests {
		err := d.check(tt.fn, tt.r)
		if err == nil || err.Error() != tt.want {
			t.Errorf("check(%s, %d) = %v, want %q", tt.fn, tt.r, err, tt.want)
			continue
		}
		if got := errors.Is(err, ErrOutOfMemory); got != tt.oom {
			t.Errorf("%v: errors.Is(ErrOutOfMemory) = %v", err, got)
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != uint32(tt.r) {
			t.Errorf("%v: not an *Error with code %d", err, tt.r)
		}
	}
	if err := d.check("cuInit", cudaSuccess); err != nil {
		t.Errorf("success: %v", err)
	}
	// Without the error functions (a failed bind), the code still shows.
	if got := (&driver{}).check("cuInit", 3).Error(); got != "cuda: cuInit: CUDA error 3" {
		t.Errorf("bare driver: %q", got)
	}
}

func TestBindMissingSymbol(t *testing.T) {
	d := &driver{lib: "libcuda.so.1"}
	lookup := func(name string) (uintptr, error) {
		if name == "cuMemsetD8Async" || name == "cuDevicePrimaryCtxRelease_v2" {
			return 0, errors.New("undefined symbol: " + name)
		}
		return 1, nil
	}
	var bound []string
	err := d.bind(lookup, func(fptr any, sym uintptr) { bound = append(bound, "x") })
	want := "cuda: the CUDA driver is too old (libcuda.so.1 has no cuMemsetD8Async): undefined symbol: cuMemsetD8Async"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	// cuDevicePrimaryCtxRelease_v2 fell back to the older name.
	if len(bound) == 0 {
		t.Fatal("nothing bound")
	}
}

func TestBindAll(t *testing.T) {
	d := &driver{lib: "x"}
	var names []string
	lookup := func(name string) (uintptr, error) { names = append(names, name); return 1, nil }
	if err := d.bind(lookup, func(any, uintptr) {}); err != nil {
		t.Fatal(err)
	}
	if len(names) != len(d.symbols()) {
		t.Errorf("%d lookups for %d functions", len(names), len(d.symbols()))
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "cu") {
			t.Errorf("symbol %q", n)
		}
	}
}

func TestCBuffer(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{[]byte("NVIDIA H100\x00garbage"), "NVIDIA H100"},
		{[]byte("  log line\n\x00\x00"), "log line"},
		{[]byte{0, 0}, ""},
		{[]byte("no terminator"), "no terminator"},
	}
	for _, tt := range tests {
		if got := cBuffer(tt.in); got != tt.want {
			t.Errorf("cBuffer(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if cString(nil) != "" {
		t.Error("cString(nil)")
	}
}

func TestInfoString(t *testing.T) {
	i := Info{Ordinal: 1, Name: "NVIDIA GeForce RTX 4090", Memory: 24 << 30, Major: 8, Minor: 9, Driver: 12040}
	want := "NVIDIA GeForce RTX 4090 (cuda:1, 24.0 GiB, compute 8.9, CUDA 12.4)"
	if got := i.String(); got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
