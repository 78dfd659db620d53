package main

// The end-to-end harness: build the real slotfare binary once, run `slotfare
// serve` on a free loopback port with its data in a temporary directory, and
// talk HTTP to it.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"slotfare"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

// TestMain removes the binary's directory after the package's tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// slotfareBinary builds cmd/slotfare once per test run.
func slotfareBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "slotfare-e2e-bin-")
		if buildErr != nil {
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		binPath = filepath.Join(binDir, "slotfare")
		out, err := exec.Command(goBin, "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// lockedBuffer collects a process's output for failure messages.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// server is one running `slotfare serve` process.
type server struct {
	t       *testing.T
	cmd     *exec.Cmd
	base    string
	data    string
	stdout  *lockedBuffer
	stderr  *lockedBuffer
	exited  chan struct{}
	stopped bool
}

// startServer runs serve with data in dataDir and the given extra flags,
// waits for the address it prints and for /readyz to answer 200.
func startServer(t *testing.T, dataDir string, extra ...string) *server {
	t.Helper()
	bin := slotfareBinary(t)
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", dataDir}, extra...)
	cmd := exec.Command(bin, args...)
	s := &server{t: t, cmd: cmd, data: dataDir, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	pr, pw := io.Pipe()
	cmd.Stdout = io.MultiWriter(s.stdout, pw)
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		pw.Close()
		close(s.exited)
	}()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "slotfare: listening on "); ok {
				a, _, _ = strings.Cut(a, " ")
				addr <- a
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case a := <-addr:
		s.base = a
	case <-s.exited:
		t.Fatalf("serve exited before listening\nstdout:\n%s\nstderr:\n%s", s.stdout, s.stderr)
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("serve did not print its address\nstdout:\n%s\nstderr:\n%s", s.stdout, s.stderr)
	}
	t.Cleanup(func() { s.stop() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve never became ready\nstderr:\n%s", s.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		if code := s.cmd.ProcessState.ExitCode(); code != 0 {
			s.t.Errorf("serve exited with %d after SIGTERM\nstderr:\n%s", code, tail(s.stderr.String(), 4000))
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		s.t.Errorf("serve did not stop within 30s of SIGTERM")
	}
}

// kill sends SIGKILL (a crash) and waits for the process to be gone.
func (s *server) kill() {
	s.stopped = true
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("answer is not JSON (%v): %s", err, r.body)
	}
}

// problem decodes a problem+json answer and checks its shape.
func (r reply) problem(t *testing.T) problemBody {
	t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Fatalf("status %d with Content-Type %q, want application/problem+json: %s", r.status, ct, r.body)
	}
	var p problemBody
	r.json(t, &p)
	if p.Status != r.status || p.Type == "" || p.Title == "" || p.Errors == nil {
		t.Fatalf("incomplete problem for status %d: %s", r.status, r.body)
	}
	return p
}

type problemBody struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Errors []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
}

var httpClient = &http.Client{Timeout: 30 * time.Second}

// do sends one request. body may be nil, a string (sent as is) or a value
// (JSON-encoded). hdr adds headers ("Idempotency-Key", ...).
func do(t *testing.T, base, method, path, key string, body any, hdr ...string) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, data}
}

// want fails unless the answer has the status.
func (r reply) want(t *testing.T, status int) reply {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	return r
}

// configWith returns the demo configuration changed by edit (on its JSON
// as maps), written to a file in dir.
func configWith(t *testing.T, dir string, edit func(cfg map[string]any)) string {
	t.Helper()
	var cfg map[string]any
	if err := json.Unmarshal(slotfare.DemoConfig, &cfg); err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	data, err := json.MarshalIndent(cfg, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
