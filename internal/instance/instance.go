package instance

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/adrg/xdg"

	"saji/engine/download"
)

// ErrNotAnswering is returned by Claim when another instance holds the
// claim but does not take the files: it is starting, stuck or quitting.
var ErrNotAnswering = errors.New("instance: another Saji is running but does not answer")

// The files in the instance folder.
const (
	lockName = "instance.lock" // held by the running instance
	sockName = "instance.sock" // its Unix socket
	portName = "instance.json" // its TCP port and token (useTCP)
)

// useTCP says whether the endpoint is a loopback TCP socket with a token
// (Windows) rather than a Unix socket. Tests set it to run both.
var useTCP = runtime.GOOS == "windows"

// Timeouts: how long a later launch tries to reach the running instance
// (which may still be starting), and how long either side waits for the
// other's message on an open connection.
var (
	sendWait = 10 * time.Second
	ioWait   = 5 * time.Second
)

// Dir is the user's instance folder: saji in the XDG runtime folder
// ($XDG_RUNTIME_DIR, %LOCALAPPDATA% on Windows, Application Support on
// macOS), or a folder of the user's own in the temporary folder when the
// runtime folder does not exist.
func Dir() string {
	if st, err := os.Stat(xdg.RuntimeDir); err == nil && st.IsDir() {
		return filepath.Join(xdg.RuntimeDir, "saji")
	}
	return filepath.Join(os.TempDir(), "saji-"+strconv.Itoa(os.Getuid()))
}

// portFile is the TCP endpoint's address book.
type portFile struct {
	Port  int    `json:"port"`
	Token string `json:"token"`
}

// Server is the running instance's endpoint. It holds the claim until
// Close.
type Server struct {
	dir   string
	lock  *os.File
	ln    net.Listener
	token string // the TCP endpoint's secret ("" on a Unix socket)

	closeOnce sync.Once
	conns     sync.WaitGroup
}

// Claim makes this process the running instance of dir, or hands files to
// the instance running there. It returns the Server when this process is
// the first (the caller serves it and closes it when the app ends), and nil
// when another instance took the files. Relative paths are made absolute
// first. An instance that holds the claim but does not answer gives
// ErrNotAnswering.
func Claim(ctx context.Context, dir string, files []string) (*Server, error) {
	abs := make([]string, 0, len(files))
	for _, f := range files {
		a, err := filepath.Abs(f)
		if err != nil {
			return nil, fmt.Errorf("instance: %w", err)
		}
		abs = append(abs, a)
	}
	var err error
	for range 3 { // the running instance may quit between the two steps
		var s *Server
		s, err = listen(dir)
		if s != nil || err != nil {
			return s, err
		}
		if err = send(ctx, dir, abs); err == nil || !errors.Is(err, errGone) {
			return nil, err
		}
	}
	return nil, err
}

// errGone says the instance that held the claim has ended meanwhile.
var errGone = errors.New("instance: the running Saji has quit")

// listen takes the claim on dir and listens, replacing what a crashed
// instance left. It returns nil and no error when another instance holds
// the claim.
func listen(dir string) (*Server, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	lock, ok, err := takeLock(dir)
	if err != nil || !ok {
		return nil, err
	}
	s := &Server{dir: dir, lock: lock}
	if useTCP {
		err = s.listenTCP()
	} else {
		err = s.listenUnix()
	}
	if err != nil {
		lock.Close()
		return nil, err
	}
	return s, nil
}

// takeLock opens and locks dir's lock file, reporting false when another
// process holds it.
func takeLock(dir string) (*os.File, bool, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("instance: %w", err)
	}
	ok, err := download.TryLock(f)
	if err != nil || !ok {
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("instance: locking %s: %w", f.Name(), err)
		}
		return nil, false, nil
	}
	return f, true, nil
}

// removeStale removes an endpoint file that a crashed instance left (the
// caller holds the claim, so no live instance owns it).
func removeStale(path string) error {
	err := os.Remove(path)
	switch {
	case err == nil:
		slog.Info("instance: replaced the endpoint a previous Saji left", "path", path)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("instance: removing a stale endpoint: %w", err)
	}
	return nil
}

// listenUnix listens on the folder's Unix socket.
func (s *Server) listenUnix() error {
	path := filepath.Join(s.dir, sockName)
	if err := removeStale(path); err != nil {
		return err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	s.ln = ln
	return nil
}

// listenTCP listens on a free loopback port and writes it, with a new
// token, to the folder's port file.
func (s *Server) listenTCP() error {
	path := filepath.Join(s.dir, portName)
	if err := removeStale(path); err != nil {
		return err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	pf := portFile{Port: ln.Addr().(*net.TCPAddr).Port, Token: hex.EncodeToString(secret)}
	b, _ := json.Marshal(pf)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("instance: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		ln.Close()
		os.Remove(tmp)
		return fmt.Errorf("instance: %w", err)
	}
	s.ln, s.token = ln, pf.Token
	return nil
}

// send hands files to the instance running in dir, trying for sendWait
// while it starts. It returns errGone when no instance holds the claim any
// more.
func send(ctx context.Context, dir string, files []string) error {
	ctx, cancel := context.WithTimeout(ctx, sendWait)
	defer cancel()
	for {
		conn, token, err := dial(ctx, dir)
		if err == nil {
			err = exchange(conn, Request{Saji: Protocol, Token: token, Files: files})
			conn.Close()
			return err
		}
		// Not listening yet, or gone: the lock tells which.
		if lock, ok, lerr := takeLock(dir); lerr == nil && ok {
			lock.Close()
			return errGone
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (%w)", ErrNotAnswering, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// dial connects to dir's endpoint, returning the token to send.
func dial(ctx context.Context, dir string) (net.Conn, string, error) {
	var d net.Dialer
	if !useTCP {
		conn, err := d.DialContext(ctx, "unix", filepath.Join(dir, sockName))
		return conn, "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, portName))
	if err != nil {
		return nil, "", err
	}
	var pf portFile
	if err := json.Unmarshal(b, &pf); err != nil {
		return nil, "", fmt.Errorf("instance: the port file: %w", err)
	}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(pf.Port)))
	return conn, pf.Token, err
}

// exchange sends req on conn and reads the reply.
func exchange(conn net.Conn, req Request) error {
	conn.SetDeadline(time.Now().Add(ioWait))
	if err := writeMessage(conn, req); err != nil {
		return err
	}
	return DecodeReply(conn)
}

// Serve accepts later launches' requests and calls open with each one's
// files (from a goroutine of its own, one request at a time per
// connection) until Close. It returns nil once closed.
func (s *Server) Serve(open func(files []string)) error {
	for {
		conn, err := s.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("instance: %w", err)
		}
		s.conns.Add(1)
		go func() {
			defer s.conns.Done()
			defer conn.Close()
			s.handle(conn, open)
		}()
	}
}

// handle answers one connection.
func (s *Server) handle(conn net.Conn, open func(files []string)) {
	conn.SetDeadline(time.Now().Add(ioWait))
	req, err := DecodeRequest(conn)
	if err == nil && subtle.ConstantTimeCompare([]byte(req.Token), []byte(s.token)) != 1 {
		err = errors.New("instance: wrong token")
	}
	rep := Reply{Saji: Protocol, OK: err == nil}
	if err != nil {
		slog.Warn("instance: refused a request", "err", err)
		rep.Error = err.Error()
	}
	if werr := writeMessage(conn, rep); werr != nil {
		slog.Debug("instance: replying", "err", werr)
	}
	if err == nil {
		open(req.Files)
	}
}

// Close stops listening, removes the endpoint and releases the claim.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		err = s.ln.Close() // a Unix listener removes its socket file
		if s.token != "" {
			os.Remove(filepath.Join(s.dir, portName))
		}
		s.conns.Wait()
		s.lock.Close()
	})
	return err
}
