//go:build linux

package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestPullTwoProcesses runs two `saji pull`s of one file at once, as two
// processes (this test binary run again: TestGPUChild) sharing the models
// and downloads folders (as two terminals, or a terminal and the app, do),
// against a fake hub that sends the file slowly enough for them to
// overlap, for SAJI_PULL_ROUNDS rounds (2 by default): both succeed, the file is sent once a round, and each round
// leaves one library file whose sha256 is the hub's and no state behind.
func TestPullTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again, twice a round")
	}
	rounds := 2
	if n, err := strconv.Atoi(os.Getenv("SAJI_PULL_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	s := newPullSetup(t) // the hub's address is in HF_ENDPOINT, which the children inherit
	const name = "Tiny-Q4_K_M.gguf"
	want := sha256.Sum256(s.files[name])
	s.hub.Throttle(int64(len(s.files[name])) * 2) // half a second a transfer
	for round := range rounds {
		dir := t.TempDir()
		// Each child is `saji pull` with the defaults of a user's
		// machine: the models and downloads folders in XDG_DATA_HOME.
		data := filepath.Join(dir, "data")
		s.models, s.states = filepath.Join(data, "saji", "models"), filepath.Join(data, "saji", "downloads")
		args, _ := json.Marshal([]string{"pull", tinyRepo + ":Q4_K_M"})
		var cmds [2]*exec.Cmd
		var logs [2]bytes.Buffer
		for i := range cmds {
			c := exec.Command(os.Args[0], "-test.run=^TestGPUChild$", "-test.count=1")
			c.Env = append(os.Environ(), "XDG_DATA_HOME="+data, childArgs+"="+string(args),
				"SAJI_CLI_OUT="+filepath.Join(dir, fmt.Sprint("out", i)), "SAJI_CLI_ERR="+filepath.Join(dir, fmt.Sprint("err", i)))
			c.Stdout, c.Stderr = &logs[i], &logs[i]
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds[i] = c
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				errs, _ := os.ReadFile(filepath.Join(dir, fmt.Sprint("err", i)))
				t.Fatalf("round %d: pull %d: %v\n%s\nstderr: %s", round, i, err, logs[i].String(), errs)
			}
		}
		s.checkLanded(name)
		files, _ := filepath.Glob(filepath.Join(s.models, "*"))
		if len(files) != 1 {
			t.Fatalf("round %d: the models folder holds %v, want the one file", round, files)
		}
		got, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if sha256.Sum256(got) != want {
			t.Fatalf("round %d: the library file's sha256 is not the hub's", round)
		}
	}
	// One transfer a round: the second pull waits for the first's lock
	// and ends with its verified file (or finds it in the library).
	var transfers int
	for _, r := range s.hub.Requests() {
		if r.Server == "cdn" && r.Method == "GET" && r.Range == "" {
			transfers++
		}
	}
	t.Logf("%d rounds of two pulls: every library file matches its sha256; the file was sent %d times", rounds, transfers)
	if transfers != rounds {
		t.Errorf("the file was sent %d times in %d rounds, want once a round", transfers, rounds)
	}
}
