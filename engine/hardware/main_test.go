package hardware

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestMain turns the test binary into a GPU probe child when ChildProbe
// starts it (its environment has childEnv): the first argument names what
// the child does, standing in for a driver that answers, crashes or hangs.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" && len(os.Args) > 1 {
		os.Exit(helperChild(os.Args[1]))
	}
	os.Exit(m.Run())
}

// canRunChild skips the test when this test binary cannot start a copy of
// itself: an arm64 binary under qemu-user without binfmt_misc cannot exec
// another arm64 binary.
func canRunChild(t *testing.T) {
	t.Helper()
	_, _, err := ChildProbe(context.Background(), ProbeTimeout, os.Args[0], "none")
	if err != nil && errors.Is(err, syscall.ENOEXEC) {
		t.Skipf("this test binary cannot start a child of its own architecture here (%v)", err)
	}
}

// helperChild acts out one probe child and returns its exit status.
func helperChild(mode string) int {
	switch mode {
	case "hwprobe": // the real probe, as 'saji hwprobe --gpu' runs it
		return printJSON(ProbeGPUs(context.Background()))
	case "ok":
		return printJSON(ProbeReport{
			GPUs:  []GPU{{Vendor: "nvidia", Name: "NVIDIA Test 24GB", Total: 24 << 30, Free: 20 << 30, Index: 0}},
			Notes: []string{"a note from the child"},
		})
	case "none":
		return printJSON(ProbeReport{GPUs: []GPU{}, Notes: []string{"no NVIDIA driver (test)"}})
	case "exit2":
		fmt.Fprintln(os.Stderr, "the driver said no")
		return 2
	case "panic":
		panic("the driver dereferenced nil")
	case "killed":
		p, _ := os.FindProcess(os.Getpid())
		_ = p.Kill()
		time.Sleep(time.Minute)
		return 0
	case "hang":
		time.Sleep(time.Hour)
		return 0
	case "garbage":
		fmt.Println("NVIDIA-SMI has failed because it couldn't communicate with the driver")
		return 0
	case "unknown-field":
		fmt.Println(`{"gpus":[],"devices":3}`)
		return 0
	case "implausible":
		return printJSON(ProbeReport{GPUs: []GPU{{Vendor: "nvidia", Total: 1, Free: 2}}})
	case "empty":
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 3
}

func printJSON(v any) int {
	if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
