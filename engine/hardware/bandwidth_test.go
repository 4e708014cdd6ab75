package hardware

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMeasureBandwidth(t *testing.T) {
	for _, size := range []int{1, 3<<20 + 8, 16 << 20} {
		bw, err := MeasureBandwidth(context.Background(), size)
		if err != nil {
			t.Fatal(err)
		}
		if bw <= 0 {
			t.Errorf("size %d: bandwidth %v", size, bw)
		}
		t.Logf("size %d: %.1f GB/s", size, bw/1e9)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureBandwidth(ctx, 1<<20); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: error %v", err)
	}
}

func TestSumWords(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 1000, 1 << 16} {
		p := make([]uint64, n)
		fillWords(p)
		var want uint64
		for _, v := range p {
			want += v
		}
		if got := sumWords(p); got != want {
			t.Errorf("n=%d: sumWords %d, want %d", n, got, want)
		}
		if n > 0 && wantSum(n) != want {
			t.Errorf("n=%d: wantSum %d, want %d", n, wantSum(n), want)
		}
	}
}

func TestBandwidthSize(t *testing.T) {
	tests := []struct {
		mem  Memory
		want int
	}{
		{Memory{}, DefaultBandwidthSize},
		{Memory{Total: 64 << 30, Available: 40 << 30}, DefaultBandwidthSize},
		{Memory{Total: 4 << 30, Available: 1 << 30}, 128 << 20},
		{Memory{Total: 1 << 30, Available: 100 << 20}, 32 << 20},
	}
	for _, tt := range tests {
		if got := bandwidthSize(tt.mem); got != tt.want {
			t.Errorf("bandwidthSize(%+v) = %d, want %d", tt.mem, got, tt.want)
		}
	}
}

func TestCachedBandwidth(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		file     string // the cache file's content; "" none
		cache    *bandwidthCache
		key      string
		want     float64
		measured bool
	}{
		{"no cache", "", nil, "k", 2e9, true},
		{"fresh", "", &bandwidthCache{Key: "k", Bandwidth: 5e9, Measured: now.Add(-23 * time.Hour)}, "k", 5e9, false},
		// Older than a day: measured again, the higher kept (a busy
		// machine reads low).
		{"rechecked, cached higher", "", &bandwidthCache{Key: "k", Bandwidth: 5e9, Measured: now.Add(-29 * 24 * time.Hour)}, "k", 5e9, true},
		{"rechecked, new higher", "", &bandwidthCache{Key: "k", Bandwidth: 1e9, Measured: now.Add(-2 * 24 * time.Hour)}, "k", 2e9, true},
		{"another machine", "", &bandwidthCache{Key: "other CPU", Bandwidth: 5e9, Measured: now}, "k", 2e9, true},
		{"too old", "", &bandwidthCache{Key: "k", Bandwidth: 5e9, Measured: now.Add(-31 * 24 * time.Hour)}, "k", 2e9, true},
		{"from the future", "", &bandwidthCache{Key: "k", Bandwidth: 5e9, Measured: now.Add(time.Hour)}, "k", 2e9, true},
		{"zero", "", &bandwidthCache{Key: "k", Measured: now}, "k", 2e9, true},
		{"corrupt", "{not json", nil, "k", 2e9, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, bandwidthCacheFile)
			if tt.cache != nil {
				if err := writeBandwidthCache(path, *tt.cache); err != nil {
					t.Fatal(err)
				}
			}
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			calls := 0
			measure := func(context.Context) (float64, error) { calls++; return 2e9, nil }
			bw, cached, err := cachedBandwidth(context.Background(), dir, tt.key, now, measure)
			if err != nil || bw != tt.want || cached == tt.measured || (calls == 1) != tt.measured {
				t.Fatalf("got %v cached=%v err=%v after %d measurements; want %v, measured %v", bw, cached, err, calls, tt.want, tt.measured)
			}
			// The second call reads what the first left.
			bw, cached, err = cachedBandwidth(context.Background(), dir, tt.key, now.Add(time.Minute), measure)
			if err != nil || bw != tt.want || !cached {
				t.Errorf("second call: %v cached=%v err=%v, want %v from the cache", bw, cached, err, tt.want)
			}
		})
	}
}

func TestCachedBandwidthNoDir(t *testing.T) {
	calls := 0
	measure := func(context.Context) (float64, error) { calls++; return 1e9, nil }
	for range 2 {
		if bw, cached, err := cachedBandwidth(context.Background(), "", "k", time.Now(), measure); err != nil || bw != 1e9 || cached {
			t.Fatalf("%v %v %v", bw, cached, err)
		}
	}
	if calls != 2 {
		t.Errorf("%d measurements, want 2", calls)
	}
	boom := errors.New("boom")
	dir := t.TempDir()
	if _, _, err := cachedBandwidth(context.Background(), dir, "k", time.Now(), func(context.Context) (float64, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	if _, err := os.Stat(filepath.Join(dir, bandwidthCacheFile)); !os.IsNotExist(err) {
		t.Errorf("a failed measurement was cached: %v", err)
	}
	// A cache folder that cannot be made: the value still comes back.
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if bw, _, err := cachedBandwidth(context.Background(), filepath.Join(file, "sub"), "k", time.Now(), measure); err != nil || bw != 1e9 {
		t.Errorf("unwritable cache: %v %v", bw, err)
	}
}

// TestDetectBandwidthCache: Detect measures once and then reads the cache;
// a cache for another machine (another CPU key) is measured again.
func TestDetectBandwidthCache(t *testing.T) {
	dir := t.TempDir()
	opts := DetectOptions{CacheDir: dir, SkipGPU: true}
	m1, err := Detect(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if m1.Bandwidth <= 0 {
		t.Fatalf("bandwidth %v, notes %q", m1.Bandwidth, m1.Notes)
	}
	t.Logf("measured %.1f GB/s (%s)", m1.Bandwidth/1e9, m1.CPU.Model)
	path := filepath.Join(dir, bandwidthCacheFile)
	c, ok := readBandwidthCache(path)
	if !ok || c.Key != bandwidthKey(m1.CPU, m1.Memory) || c.Bandwidth != m1.Bandwidth {
		t.Fatalf("cache %+v, want the key %q and %v", c, bandwidthKey(m1.CPU, m1.Memory), m1.Bandwidth)
	}

	// A value only the cache can give proves the second Detect read it.
	c.Bandwidth = 12345
	if err := writeBandwidthCache(path, c); err != nil {
		t.Fatal(err)
	}
	m2, err := Detect(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Bandwidth != 12345 {
		t.Errorf("second Detect: %v, want the cached 12345", m2.Bandwidth)
	}

	// The same value under another machine's key is measured again.
	c.Key = "Another CPU|" + c.Key
	if err := writeBandwidthCache(path, c); err != nil {
		t.Fatal(err)
	}
	m3, err := Detect(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if m3.Bandwidth == 12345 || m3.Bandwidth <= 0 {
		t.Errorf("another machine's cache: %v, want a new measurement", m3.Bandwidth)
	}
	if c, _ := readBandwidthCache(path); c.Key != bandwidthKey(m3.CPU, m3.Memory) || c.Bandwidth != m3.Bandwidth {
		t.Errorf("cache after re-measuring: %+v", c)
	}
}
