package hardware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// ProbeTimeout is how long Detect waits for the GPU probe child before it
// gives up on the GPUs.
const ProbeTimeout = 5 * time.Second

// childEnv is set in the probe child's environment, so that nothing in it
// starts a probe of its own.
const childEnv = "SAJI_HWPROBE_CHILD"

// ProbeReport is what the GPU probe finds: the GPUs and a note for each
// driver that is missing or failed. The hidden 'saji hwprobe --gpu'
// command prints it as JSON for ChildProbe.
type ProbeReport struct {
	GPUs  []GPU    `json:"gpus"`
	Notes []string `json:"notes,omitempty"`
}

// Probe errors, for errors.Is. Detect turns each into a note.
var (
	// ErrProbeCrashed: the probe child died or exited with a failure
	// status, most likely because the driver crashed.
	ErrProbeCrashed = errors.New("hardware: the GPU probe crashed")
	// ErrProbeTimeout: the probe child did not answer in time.
	ErrProbeTimeout = errors.New("hardware: the GPU probe did not answer in time")
	// ErrProbeOutput: the probe child's output is not a ProbeReport.
	ErrProbeOutput = errors.New("hardware: the GPU probe's output is unreadable")
)

// ProbeGPUs queries the GPU drivers in this process: NVML for NVIDIA GPUs
// on Linux and Windows, Metal on macOS. A missing or failing driver is a
// note. A driver can crash the process while being queried: callers that
// must survive that run it in a child process (ChildProbe).
func ProbeGPUs(ctx context.Context) ProbeReport {
	gpus, notes := probeDrivers(ctx)
	if gpus == nil {
		gpus = []GPU{}
	}
	return ProbeReport{GPUs: gpus, Notes: notes}
}

// ChildProbe runs argv as a child process that prints a ProbeReport as
// JSON on its standard output (argv is normally this executable with
// "hwprobe", "--gpu") and returns the report's GPUs and notes. A child that
// crashes, exits with a failure status, prints something else or is still
// running after timeout gives an error wrapping ErrProbeCrashed,
// ErrProbeOutput or ErrProbeTimeout; the child is killed on timeout or when
// ctx ends.
func ChildProbe(ctx context.Context, timeout time.Duration, argv ...string) ([]GPU, []string, error) {
	if len(argv) == 0 {
		return nil, nil, errors.New("hardware: no GPU probe command")
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &stdout, max: 1 << 20}
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 4 << 10}
	// A grandchild holding the pipes open must not keep Wait waiting.
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, nil, fmt.Errorf("hardware: GPU probe: %w", ctx.Err())
		case cctx.Err() != nil:
			return nil, nil, &probeError{ErrProbeTimeout, fmt.Sprintf("no answer within %s", timeout)}
		case cmd.ProcessState == nil:
			return nil, nil, fmt.Errorf("hardware: starting the GPU probe: %w", err)
		}
		detail := err.Error()
		if msg := firstLine(stderr.String()); msg != "" {
			detail += ": " + msg
		}
		return nil, nil, &probeError{ErrProbeCrashed, detail}
	}
	var rep ProbeReport
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		return nil, nil, &probeError{ErrProbeOutput, err.Error()}
	}
	for _, g := range rep.GPUs {
		if g.Vendor == "" || g.Free > g.Total {
			return nil, nil, &probeError{ErrProbeOutput, fmt.Sprintf("implausible GPU %+v", g)}
		}
	}
	return rep.GPUs, rep.Notes, nil
}

// probeError is a failed probe child: one of the ErrProbe errors and what
// happened.
type probeError struct {
	kind   error
	detail string
}

func (e *probeError) Error() string { return e.kind.Error() + " (" + e.detail + ")" }
func (e *probeError) Unwrap() error { return e.kind }

// probeNote is the note Detect gives for a failed GPU probe.
func probeNote(err error) string {
	detail := noteOf(err)
	if pe, ok := errors.AsType[*probeError](err); ok {
		detail = pe.detail
	}
	switch {
	case errors.Is(err, ErrProbeCrashed):
		return fmt.Sprintf("the %s crashed while being queried; GPU offload is off (%s)", driverName, detail)
	case errors.Is(err, ErrProbeTimeout):
		return fmt.Sprintf("the %s did not answer; GPU offload is off (%s)", driverName, detail)
	case errors.Is(err, ErrProbeOutput):
		return fmt.Sprintf("the GPU probe's answer is unreadable; GPU offload is off (%s)", detail)
	default:
		return fmt.Sprintf("the GPUs could not be detected; GPU offload is off (%s)", detail)
	}
}

// firstLine is the first non-empty line of s, cut to 200 bytes: a panic's
// message or a fatal signal's name comes first in a crashed Go program's
// standard error.
func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			return l
		}
	}
	return ""
}

// limitedBuffer keeps the first max bytes written to it and drops the
// rest, so that a child that floods its standard error costs no memory.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
