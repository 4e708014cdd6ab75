package app

import (
	"strings"
	"testing"
)

func TestRecoverTo(t *testing.T) {
	run := func(f func()) (err error) {
		defer recoverTo(&err, "the task")
		f()
		return nil
	}
	if err := run(func() {}); err != nil {
		t.Errorf("no panic: %v", err)
	}
	err := run(func() { panic("index out of range") })
	if err == nil || !strings.Contains(err.Error(), "the task") || !strings.Contains(err.Error(), "index out of range") {
		t.Errorf("after a panic: %v", err)
	}
	// A worker's panicking work ends as its own, leaving the worker (and
	// the process) running.
	var w worker
	w.run(func() func() { panic("boom") })
	w.busy.Wait()
	done := false
	w.run(func() func() { done = true; return nil })
	w.busy.Wait()
	if !done {
		t.Error("the worker ran nothing after a panic")
	}
}
