package download_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"saji/engine/download"
)

// A download with a progress line, as `saji pull` shows it.
func Example() {
	m, err := download.New(download.Options{StateDir: "/tmp/saji-downloads"})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	// The file's size and sha256 come from the repository's file listing
	// (its LFS metadata); left empty, the first response decides the size
	// and no hash is checked.
	var size int64
	var sha256 string
	h := http.Header{}
	h.Set("Authorization", "Bearer hf_...") // sent to huggingface.co only, not to its CDN
	job, err := m.Start(download.Request{
		ID:     "bartowski/Llama-3.2-1B-Instruct-GGUF/Llama-3.2-1B-Instruct-Q4_K_M.gguf@main",
		URL:    "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf",
		Header: h,
		Size:   size,
		SHA256: sha256,
		Dest:   "/home/me/.local/share/saji/models/Llama-3.2-1B-Instruct-Q4_K_M.gguf",
		Meta:   map[string]string{"repo": "bartowski/Llama-3.2-1B-Instruct-GGUF", "quant": "Q4_K_M"},
	})
	if err != nil {
		log.Fatal(err)
	}
	events, stop := job.Subscribe()
	defer stop()
	for p := range events { // closed once the job ends
		fmt.Printf("\r%-11s %5.1f%%  %6.1f MB/s  ETA %v", p.State, 100*float64(p.Done)/float64(max(p.Total, 1)), p.Rate/1e6, p.ETA)
	}
	if err := job.Wait(context.Background()); err != nil {
		log.Fatal(err)
	}
}
