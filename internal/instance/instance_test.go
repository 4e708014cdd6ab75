package instance

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test binary runs itself as the second launch: with childEnv set it
// claims the folder it names instead of running the tests.
const (
	childEnv = "SAJI_INSTANCE_TEST_CHILD" // "send" or "crash"
	dirEnv   = "SAJI_INSTANCE_TEST_DIR"
	tcpEnv   = "SAJI_INSTANCE_TEST_TCP"
)

// Exit statuses of the child.
const (
	childHandedOver = 0
	childFirst      = 3
	childFailed     = 4
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

// child is the second process: "send" claims the folder with a relative
// file name and reports whether it handed it over; "crash" claims it and
// exits without closing, as a crashed app would.
func child(mode string) int {
	useTCP = os.Getenv(tcpEnv) != ""
	s, err := Claim(context.Background(), os.Getenv(dirEnv), []string{"child.gguf"})
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return childFailed
	case s == nil:
		return childHandedOver
	case mode == "crash":
		return childFirst // the lock dies with the process; the endpoint stays
	}
	s.Close()
	return childFirst
}

// runChild runs the test binary as a second launch in dir and returns its
// exit status.
func runChild(t *testing.T, mode, dir, cwd string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), childEnv+"="+mode, dirEnv+"="+dir)
	if useTCP {
		cmd.Env = append(cmd.Env, tcpEnv+"=1")
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if len(out) > 0 {
		t.Logf("child: %s", out)
	}
	return cmd.ProcessState.ExitCode()
}

// transports runs f over the Unix socket and over TCP with a token.
func transports(t *testing.T, f func(t *testing.T)) {
	for _, tcp := range []bool{false, true} {
		name := "unix"
		if tcp {
			name = "tcp"
		}
		t.Run(name, func(t *testing.T) {
			old := useTCP
			useTCP = tcp
			t.Cleanup(func() { useTCP = old })
			f(t)
		})
	}
}

// serve serves s, sending each request's files on the returned channel.
func serve(t *testing.T, s *Server) <-chan []string {
	t.Helper()
	got := make(chan []string, 4)
	done := make(chan error, 1)
	go func() { done <- s.Serve(func(files []string) { got <- files }) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return got
}

// receive waits for the files of one request.
func receive(t *testing.T, got <-chan []string) []string {
	t.Helper()
	select {
	case files := <-got:
		return files
	case <-time.After(time.Minute): // a hang, not a slow machine
		t.Fatal("no files reached the first instance")
		return nil
	}
}

func TestSecondProcessHandsOver(t *testing.T) {
	transports(t, func(t *testing.T) {
		dir, cwd := t.TempDir(), t.TempDir()
		first, err := Claim(context.Background(), dir, nil)
		if err != nil || first == nil {
			t.Fatalf("the first claim: %v, %v", first, err)
		}
		got := serve(t, first)
		if status := runChild(t, "send", dir, cwd); status != childHandedOver {
			t.Fatalf("the second process exited %d, want %d (handed over)", status, childHandedOver)
		}
		files := receive(t, got)
		if want := filepath.Join(cwd, "child.gguf"); len(files) != 1 || files[0] != want {
			t.Errorf("the first instance got %q, want [%q]", files, want)
		}
	})
}

func TestClaimAfterCrash(t *testing.T) {
	transports(t, func(t *testing.T) {
		dir := t.TempDir()
		if status := runChild(t, "crash", dir, t.TempDir()); status != childFirst {
			t.Fatalf("the crashing process exited %d, want %d", status, childFirst)
		}
		left := sockName
		if useTCP {
			left = portName
		}
		if _, err := os.Stat(filepath.Join(dir, left)); err != nil {
			t.Fatalf("the crashed instance left no endpoint: %v", err)
		}
		s, err := Claim(context.Background(), dir, nil)
		if err != nil || s == nil {
			t.Fatalf("claiming after a crash: %v, %v", s, err)
		}
		got := serve(t, s)
		// The replaced endpoint works: a second launch reaches this one.
		if status := runChild(t, "send", dir, t.TempDir()); status != childHandedOver {
			t.Fatalf("the second process exited %d, want %d", status, childHandedOver)
		}
		receive(t, got)
	})
}

func TestStaleSocketReplaced(t *testing.T) {
	dir := t.TempDir()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, sockName), Net: "unix"})
	if err != nil {
		t.Skip("no Unix sockets here:", err)
	}
	l.SetUnlinkOnClose(false)
	l.Close() // a socket file that nothing listens on
	s, err := Claim(context.Background(), dir, nil)
	if err != nil || s == nil {
		t.Fatalf("claim over a stale socket: %v, %v", s, err)
	}
	got := serve(t, s)
	if s2, err := Claim(context.Background(), dir, []string{"/m.gguf"}); s2 != nil || err != nil {
		t.Fatalf("a second claim: %v, %v; want a handover", s2, err)
	}
	receive(t, got)
}

func TestClosedInstanceReleasesTheClaim(t *testing.T) {
	transports(t, func(t *testing.T) {
		dir := t.TempDir()
		s, err := Claim(context.Background(), dir, nil)
		if err != nil || s == nil {
			t.Fatal(s, err)
		}
		s.Close()
		s, err = Claim(context.Background(), dir, nil)
		if err != nil || s == nil {
			t.Fatalf("claiming after Close: %v, %v", s, err)
		}
		s.Close()
	})
}

func TestNotAnswering(t *testing.T) {
	transports(t, func(t *testing.T) {
		old := sendWait
		sendWait = 200 * time.Millisecond
		t.Cleanup(func() { sendWait = old })
		dir := t.TempDir()
		s, err := Claim(context.Background(), dir, nil)
		if err != nil || s == nil {
			t.Fatal(s, err)
		}
		// The claim is held but nothing listens (a stuck instance).
		s.ln.Close()
		defer s.Close()
		if _, err := Claim(context.Background(), dir, nil); !errors.Is(err, ErrNotAnswering) {
			t.Errorf("err %v, want ErrNotAnswering", err)
		}
	})
}

func TestBadRequestsGetAnError(t *testing.T) {
	transports(t, func(t *testing.T) {
		dir := t.TempDir()
		s, err := Claim(context.Background(), dir, nil)
		if err != nil || s == nil {
			t.Fatal(s, err)
		}
		got := serve(t, s)
		tests := []struct {
			name, msg, wantErr string
		}{
			{"garbage", "hello\n", "not a Saji message"},
			{"newer version", `{"saji":9}` + "\n", "protocol version 9"},
			{"relative path", `{"saji":1,"files":["x.gguf"]}` + "\n", "absolute"},
		}
		if useTCP {
			tests = append(tests, struct{ name, msg, wantErr string }{"wrong token", `{"saji":1,"token":"nope"}` + "\n", "wrong token"})
		}
		for _, tt := range tests {
			conn, token, err := dial(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			msg := tt.msg
			if token != "" && !strings.Contains(msg, "token") {
				msg = strings.Replace(msg, "{", `{"token":"`+token+`",`, 1)
			}
			conn.SetDeadline(time.Now().Add(time.Minute))
			if _, err := conn.Write([]byte(msg)); err != nil {
				t.Fatal(err)
			}
			err = DecodeReply(conn)
			conn.Close()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: reply %v, want an error with %q", tt.name, err, tt.wantErr)
			}
		}
		select {
		case files := <-got:
			t.Errorf("a bad request opened %q", files)
		default:
		}
	})
}
