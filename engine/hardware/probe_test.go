package hardware

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestChildProbe(t *testing.T) {
	canRunChild(t)
	tests := []struct {
		mode     string
		timeout  time.Duration
		wantErr  error
		wantGPUs int
		note     string // a substring of the first note, or of Detect's note for an error
	}{
		{"ok", ProbeTimeout, nil, 1, "a note from the child"},
		{"none", ProbeTimeout, nil, 0, "no NVIDIA driver"},
		{"exit2", ProbeTimeout, ErrProbeCrashed, 0, "crashed while being queried; GPU offload is off"},
		{"panic", ProbeTimeout, ErrProbeCrashed, 0, "the driver dereferenced nil"},
		{"killed", ProbeTimeout, ErrProbeCrashed, 0, "crashed while being queried"},
		{"hang", 300 * time.Millisecond, ErrProbeTimeout, 0, "did not answer; GPU offload is off"},
		{"garbage", ProbeTimeout, ErrProbeOutput, 0, "answer is unreadable; GPU offload is off (invalid character"},
		{"unknown-field", ProbeTimeout, ErrProbeOutput, 0, "unreadable"},
		{"implausible", ProbeTimeout, ErrProbeOutput, 0, "implausible"},
		{"empty", ProbeTimeout, ErrProbeOutput, 0, "unreadable"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			gpus, notes, err := ChildProbe(context.Background(), tt.timeout, os.Args[0], tt.mode)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if len(gpus) != tt.wantGPUs {
				t.Errorf("%d GPUs, want %d: %+v", len(gpus), tt.wantGPUs, gpus)
			}
			if err != nil {
				notes = []string{probeNote(err)}
			}
			if len(notes) == 0 || !strings.Contains(notes[0], tt.note) {
				t.Errorf("notes %q, want one with %q", notes, tt.note)
			}
			t.Logf("notes: %q", notes)
		})
	}
}

// TestChildProbeReal runs this package's real probe in a child, as
// 'saji hwprobe --gpu' does. Without an NVIDIA driver it finds no GPU and
// says why.
func TestChildProbeReal(t *testing.T) {
	canRunChild(t)
	gpus, notes, err := ChildProbe(context.Background(), ProbeTimeout, os.Args[0], "hwprobe")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GPUs %+v, notes %q", gpus, notes)
	if len(gpus) == 0 && len(notes) == 0 {
		t.Error("no GPU and no note saying why")
	}
}

func TestChildProbeCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := ChildProbe(ctx, ProbeTimeout, os.Args[0], "hang")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if _, _, err := ChildProbe(context.Background(), ProbeTimeout); err == nil {
		t.Error("no command: no error")
	}
	_, _, err = ChildProbe(context.Background(), ProbeTimeout, filepath.Join(t.TempDir(), "no-such-saji"), "hwprobe", "--gpu")
	if err == nil || errors.Is(err, ErrProbeCrashed) || !strings.Contains(probeNote(err), "could not be detected; GPU offload is off (starting the GPU probe") {
		t.Errorf("a missing executable: %v, note %q", err, probeNote(err))
	}
}

// TestDetectChildCrash: a probe child that crashes is a note, and Detect
// still describes the rest of the machine.
func TestDetectChildCrash(t *testing.T) {
	canRunChild(t)
	for _, mode := range []string{"panic", "hang", "garbage"} {
		t.Run(mode, func(t *testing.T) {
			m, err := Detect(context.Background(), DetectOptions{
				SkipBandwidth: true,
				Probe: func(ctx context.Context) ([]GPU, []string, error) {
					return ChildProbe(ctx, 300*time.Millisecond, os.Args[0], mode)
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.GPUs) != 0 || len(m.Notes) == 0 || !strings.Contains(m.Notes[len(m.Notes)-1], "GPU offload is off") {
				t.Errorf("GPUs %+v, notes %q", m.GPUs, m.Notes)
			}
			if m.CPU.Threads == 0 || m.Memory.Total == 0 {
				t.Errorf("the rest of the machine is missing: %+v", m)
			}
		})
	}
}

func TestFirstLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"\n\n  panic: boom\n\ngoroutine 1 [running]:\n", "panic: boom"},
		{strings.Repeat("x", 300), strings.Repeat("x", 200) + "..."},
	}
	for _, tt := range tests {
		if got := firstLine(tt.in); got != tt.want {
			t.Errorf("firstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
