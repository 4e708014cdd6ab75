package cli

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"saji/engine/hardware"
)

func TestHWProbe(t *testing.T) {
	out, err := runWithInput(t, "", "hwprobe", "--gpu")
	if err != nil {
		t.Fatal(err)
	}
	var rep hardware.ProbeReport
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if rep.GPUs == nil || (len(rep.GPUs) == 0 && len(rep.Notes) == 0) {
		t.Errorf("report %+v: no GPU list, or none and no note saying why", rep)
	}
	t.Logf("%s", out)

	out, err = runWithInput(t, "", "hwprobe")
	if err != nil {
		t.Fatal(err)
	}
	var m hardware.Machine
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if m.CPU.Threads != runtime.NumCPU() || m.Memory.Total == 0 || m.Bandwidth != 0 {
		t.Errorf("machine %+v", m)
	}

	root := NewRootCommand(Options{})
	for _, c := range root.Commands() {
		if c.Name() == "hwprobe" && !c.Hidden {
			t.Error("hwprobe is listed in the help")
		}
	}
}
