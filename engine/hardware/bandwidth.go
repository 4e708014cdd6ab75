package hardware

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"
)

// DefaultBandwidthSize is the buffer MeasureBandwidth reads when given no
// size: far larger than any CPU cache, so that the reads come from RAM.
const DefaultBandwidthSize = 256 << 20

// bandwidthPasses is how many times one measurement reads the buffer;
// bandwidthRuns how many measurements give the median.
const (
	bandwidthPasses = 3
	bandwidthRuns   = 3
)

// BandwidthMaxAge is how long a cached bandwidth measurement is trusted.
const BandwidthMaxAge = 30 * 24 * time.Hour

// BandwidthRecheck is the age after which a cached measurement is taken
// again and the higher of the two kept: a measurement taken while other
// programs kept the memory busy reads low, and should not stand for a
// month.
const BandwidthRecheck = 24 * time.Hour

// bandwidthCacheFile is the cache's name in DetectOptions.CacheDir.
const bandwidthCacheFile = "bandwidth.json"

// MeasureBandwidth measures the main-memory read bandwidth in bytes per
// second: every logical CPU sums its share of a buffer of size bytes
// (DefaultBandwidthSize when size <= 0), a few passes at a time, and the
// result is the median of three such measurements. It takes a fraction of
// a second on a desktop machine and allocates the buffer for that time.
func MeasureBandwidth(ctx context.Context, size int) (float64, error) {
	if size <= 0 {
		size = DefaultBandwidthSize
	}
	words := max(size/8, 1024)
	buf := make([]uint64, words)
	// Hand the buffer back to the system when done: it would otherwise stay
	// in this process's resident set, which the fit check measures.
	defer debug.FreeOSMemory()
	fillWords(buf)
	workers := min(runtime.NumCPU(), max(1, words/1024))
	chunk := (words + workers - 1) / workers
	rates := make([]float64, 0, bandwidthRuns)
	var sink uint64
	for range bandwidthRuns {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("hardware: measuring the memory bandwidth: %w", err)
		}
		sums := make([]uint64, workers)
		var wg sync.WaitGroup
		start := time.Now()
		for w := range workers {
			part := buf[min(w*chunk, words):min((w+1)*chunk, words)]
			wg.Go(func() {
				var s uint64
				for range bandwidthPasses {
					s += sumWords(part)
				}
				sums[w] = s
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		for _, s := range sums {
			sink += s
		}
		if elapsed <= 0 {
			continue
		}
		rates = append(rates, float64(words*8*bandwidthPasses)/elapsed.Seconds())
	}
	// The sums depend on every word, so the reads cannot be left out; the
	// sink's value is known (each pass adds the same sum) and checks it.
	if want := wantSum(words) * bandwidthPasses * bandwidthRuns; sink != want {
		return 0, fmt.Errorf("hardware: measuring the memory bandwidth: the buffer summed to %d, not %d", sink, want)
	}
	if len(rates) == 0 {
		return 0, errors.New("hardware: measuring the memory bandwidth: the clock did not advance")
	}
	slices.Sort(rates)
	return rates[len(rates)/2], nil
}

// wantSum is 0 + 1 + ... + (n-1) modulo 2^64, the sum of a buffer of n
// words as MeasureBandwidth fills it.
func wantSum(n int) uint64 {
	a, b := uint64(n), uint64(n-1)
	if a%2 == 0 {
		a /= 2
	} else {
		b /= 2
	}
	return a * b
}

// fillWords writes 0, 1, 2, ... to p, which also touches every page so
// that the measurement times no page faults. Like sumWords, it is not
// instrumented by the race detector: p is not shared yet.
//
//go:norace
func fillWords(p []uint64) {
	for i := range p {
		p[i] = uint64(i)
	}
}

// sumWords adds the words of p with four independent accumulators, which
// keeps the loads, not the additions, the bottleneck. The race detector
// instruments no load here: the buffer is read-only while it runs.
//
//go:norace
func sumWords(p []uint64) uint64 {
	var s0, s1, s2, s3 uint64
	i := 0
	for ; i+8 <= len(p); i += 8 {
		q := p[i : i+8 : i+8]
		s0 += q[0] + q[4]
		s1 += q[1] + q[5]
		s2 += q[2] + q[6]
		s3 += q[3] + q[7]
	}
	for ; i < len(p); i++ {
		s0 += p[i]
	}
	return s0 + s1 + s2 + s3
}

// bandwidthSize is the buffer size for this machine: DefaultBandwidthSize,
// or an eighth of the available memory when that is smaller (at least
// 32 MiB, still past the caches of most desktop CPUs).
func bandwidthSize(m Memory) int {
	size := DefaultBandwidthSize
	if m.Available > 0 && m.Available/8 < uint64(size) {
		size = max(int(m.Available/8), 32<<20)
	}
	return size
}

// bandwidthKey identifies the machine a cached measurement is for: a new
// CPU or a different amount of RAM measures again.
func bandwidthKey(c CPU, m Memory) string {
	return c.Model + "|" + strconv.Itoa(c.Threads) + " threads|" + strconv.FormatUint(m.Total, 10) + " bytes"
}

// bandwidthCache is the content of bandwidth.json.
type bandwidthCache struct {
	Key       string    `json:"key"`
	Bandwidth float64   `json:"bytes_per_second"`
	Measured  time.Time `json:"measured"`
}

// cachedBandwidth returns the bandwidth cached in dir for key if it was
// measured less than BandwidthRecheck before now; a value between that and
// BandwidthMaxAge old is measured again and the higher kept; otherwise it
// measures and caches it (dir "" caches nothing). cached says whether the value
// came from the cache. A cache that cannot be read or written is only
// logged.
func cachedBandwidth(ctx context.Context, dir, key string, now time.Time, measure func(context.Context) (float64, error)) (bw float64, cached bool, err error) {
	var path string
	var prev float64 // a valid cached value being re-checked
	if dir != "" {
		path = filepath.Join(dir, bandwidthCacheFile)
		if c, ok := readBandwidthCache(path); ok && c.Key == key && c.Bandwidth > 0 &&
			!c.Measured.After(now) && now.Sub(c.Measured) < BandwidthMaxAge {
			if now.Sub(c.Measured) < BandwidthRecheck {
				return c.Bandwidth, true, nil
			}
			prev = c.Bandwidth
		}
	}
	bw, err = measure(ctx)
	if err != nil {
		if prev > 0 {
			return prev, true, nil
		}
		return 0, false, err
	}
	bw = max(bw, prev)
	if path != "" && bw > 0 {
		if err := writeBandwidthCache(path, bandwidthCache{Key: key, Bandwidth: bw, Measured: now}); err != nil {
			slog.Warn("hardware: the bandwidth cache is not written", "err", err)
		}
	}
	return bw, false, nil
}

// readBandwidthCache reads the cache file; ok is false when there is none
// or it is unreadable.
func readBandwidthCache(path string) (bandwidthCache, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return bandwidthCache{}, false
	}
	var c bandwidthCache
	if err := json.Unmarshal(data, &c); err != nil {
		return bandwidthCache{}, false
	}
	return c, true
}

// writeBandwidthCache replaces the cache file through a temporary file, so
// that a crash leaves the old cache or the new one, never half of one.
func writeBandwidthCache(path string, c bandwidthCache) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("hardware: encoding the bandwidth cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("hardware: writing the bandwidth cache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".bandwidth-*.json")
	if err != nil {
		return fmt.Errorf("hardware: writing the bandwidth cache: %w", err)
	}
	_, werr := f.Write(append(data, '\n'))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("hardware: writing the bandwidth cache: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("hardware: writing the bandwidth cache: %w", err)
	}
	return nil
}
