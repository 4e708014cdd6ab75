package cli

import (
	"bytes"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pullProcessEnv, set in a child's environment, makes TestPullProcess run
// one `saji pull`: its value is the models folder, the downloads folder
// and the argument, separated by newlines.
const pullProcessEnv = "SAJI_TEST_PULL_PROCESS"

// TestPullProcess is one of TestPullTwoProcesses's pulls, in a process of
// its own (this test binary run again): skipped otherwise.
func TestPullProcess(t *testing.T) {
	spec := os.Getenv(pullProcessEnv)
	if spec == "" {
		t.Skip("a child of TestPullTwoProcesses")
	}
	f := strings.Split(spec, "\n")
	if len(f) != 3 {
		t.Fatalf("%s: %q", pullProcessEnv, spec)
	}
	off := false
	var stdout, stderr bytes.Buffer
	cmd := newPullCmdWith(pullEnv{stateDir: f[1], terminal: &off})
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs([]string{f[2], "--models-dir", f[0]})
	err := cmd.Execute()
	os.Stdout.WriteString(stdout.String())
	os.Stderr.WriteString(stderr.String())
	if err != nil {
		t.Fatal(err)
	}
}

// TestPullTwoProcesses runs two `saji pull`s of one file at once, as two
// processes sharing the models and downloads folders (as two terminals,
// or a terminal and the app, do), against a fake hub that sends the file
// slowly enough for them to overlap, for SAJI_PULL_ROUNDS rounds (2 by
// default): both succeed, the file is sent once a round, and each round
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
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for round := range rounds {
		dir := t.TempDir()
		s.models, s.states = filepath.Join(dir, "models"), filepath.Join(dir, "downloads")
		var cmds [2]*exec.Cmd
		var outs [2]bytes.Buffer
		for i := range cmds {
			c := exec.Command(exe, "-test.run=^TestPullProcess$", "-test.count=1")
			c.Env = append(os.Environ(), pullProcessEnv+"="+s.models+"\n"+s.states+"\n"+tinyRepo+":Q4_K_M")
			c.Stdout, c.Stderr = &outs[i], &outs[i]
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds[i] = c
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("round %d: pull %d: %v\n%s", round, i, err, outs[i].String())
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
