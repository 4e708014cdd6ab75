package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSoak runs 64 concurrent clients against the API for SAJI_SOAK (a
// duration such as 60s; skipped when unset): streamed chats, plain
// completions and streams the client abandons after a few tokens. It
// checks that no request fails, that every cancelled generation frees its
// blocks, and that goroutines, open files and heap come back to where
// they were.
func TestSoak(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("SAJI_SOAK"))
	if err != nil || d <= 0 {
		t.Skip("set SAJI_SOAK=60s (make clients) for the soak test")
	}
	s, hs := newTestServer(t, Config{})
	sched := s.Runner().Models()[0].Scheduler()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var mu sync.Mutex
	var latencies []time.Duration
	counts := map[string]int{}
	var errs []string
	// The first quarter warms up the buffers a full load keeps (recycled
	// activations of every batch size); the baseline is taken after it.
	var goBefore, filesBefore int
	var heapBefore uint64
	load := func(d time.Duration, phase uint64) {
		deadline := time.Now().Add(d)
		var wg sync.WaitGroup
		for i := range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(i), phase))
				for time.Now().Before(deadline) {
					kind := []string{"stream", "plain", "cancel"}[rng.IntN(3)]
					start := time.Now()
					err := soakRequest(client, hs.URL, kind, rng)
					mu.Lock()
					switch {
					case err != nil:
						if len(errs) < 5 {
							errs = append(errs, fmt.Sprintf("%s: %v", kind, err))
						}
						counts["errors"]++
					case kind == "cancel":
						counts["cancelled"]++
					default:
						counts["completed"]++
						latencies = append(latencies, time.Since(start))
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	load(d/4, 1)
	goBefore, heapBefore = quiesce(client)
	filesBefore = openFiles()
	load(d-d/4, 2)
	// Every generation ends and frees its blocks.
	for end := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		st := sched.Stats()
		if st.Running == 0 && st.Waiting == 0 && st.KV.Groups[0].Used == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("generations still hold the scheduler after the soak: %+v", st)
		}
	}
	// The server closes its side of the connections the clients closed
	// in a moment.
	var goAfter, filesAfter int
	var heapAfter uint64
	for end := time.Now().Add(30 * time.Second); ; {
		goAfter, heapAfter = quiesce(client)
		filesAfter = openFiles()
		if (goAfter <= goBefore+8 && filesAfter <= filesBefore+2) || time.Now().After(end) {
			break
		}
	}
	slices.Sort(latencies)
	p99 := time.Duration(0)
	if len(latencies) > 0 {
		p99 = latencies[len(latencies)*99/100]
	}
	t.Logf("soak %v (the last %v measured against the first %v): %d completed, %d cancelled by the client, %d errors; p99 latency %v; goroutines %d -> %d; open files %d -> %d; heap %.1f -> %.1f MiB",
		d, d-d/4, d/4, counts["completed"], counts["cancelled"], counts["errors"], p99.Round(time.Millisecond), goBefore, goAfter, filesBefore, filesAfter,
		float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20))
	if counts["errors"] > 0 {
		t.Errorf("%d requests failed: %v", counts["errors"], errs)
	}
	if counts["completed"] == 0 || counts["cancelled"] == 0 {
		t.Errorf("the soak ran no mix: %v", counts)
	}
	if goAfter > goBefore+8 {
		t.Errorf("goroutines leaked: %d before, %d after", goBefore, goAfter)
	}
	if filesAfter > filesBefore+2 {
		t.Errorf("open files leaked: %d before, %d after", filesBefore, filesAfter)
	}
	if heapAfter > heapBefore+heapBefore/4+8<<20 {
		t.Errorf("the heap grew from %d to %d bytes", heapBefore, heapAfter)
	}
}

// quiesce closes idle connections, collects garbage and returns the
// goroutine count and live heap.
func quiesce(client *http.Client) (int, uint64) {
	client.CloseIdleConnections()
	var ms runtime.MemStats
	for range 3 {
		time.Sleep(100 * time.Millisecond)
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapAlloc
}

// soakRequest sends one request of the given kind and reads its answer.
func soakRequest(client *http.Client, url, kind string, rng *rand.Rand) error {
	n := 2 + rng.IntN(12)
	var body, path string
	switch kind {
	case "plain":
		path = "/v1/completions"
		body = fmt.Sprintf(`{"model":"tiny","prompt":"the cat sat %d","max_tokens":%d}`, rng.IntN(1000), n)
	default:
		path = "/v1/chat/completions"
		body = fmt.Sprintf(`{"model":"tiny","stream":true,"messages":[{"role":"user","content":"the mat %d"}],"max_tokens":%d}`, rng.IntN(1000), n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if kind != "cancel" {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if kind == "stream" && !strings.Contains(string(b), "data: [DONE]") {
			return fmt.Errorf("the stream ended without [DONE]: %q", b)
		}
		return nil
	}
	br := bufio.NewReader(resp.Body)
	for range 2 {
		if _, err := br.ReadString('\n'); err != nil {
			return nil // it may end before we leave
		}
	}
	cancel()
	return nil
}
