// Package redistest starts a real redis-server for a test, on a loopback
// port in the test's temporary directory, and stops it when the test ends.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Start runs redis-server with extra arguments (e.g. "--appendonly", "yes")
// and returns a client on it. Without redis-server on PATH the test is
// skipped, saying so: CI (.ci/run) installs it.
func Start(t testing.TB, args ...string) *redis.Client {
	t.Helper()
	s := NewServer(t, args...)
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// Server is one redis-server process that a test can stop and start again
// on the same port and directory: a test of what clients do while Redis is
// down, and of what its append-only file gives back when it returns.
type Server struct {
	// Addr is host:port, the same across restarts.
	Addr string
	// Dir is the server's working directory (its append-only file).
	Dir string

	t    testing.TB
	bin  string
	argv []string
	cmd  *exec.Cmd
}

// NewServer runs redis-server as Start does and returns it, answering.
// It is killed when the test ends.
func NewServer(t testing.TB, args ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server; .ci/run does): this test needs a real Redis")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), Dir: dir, t: t, bin: bin,
		argv: append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"}, args...)}
	t.Cleanup(s.Kill)
	s.Restart()
	return s
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr }

// Kill stops the server with SIGKILL, as a crash would, and waits for it
// to be gone. Killing a stopped server does nothing.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill() // it may have exited already; Wait says how
	_ = s.cmd.Wait()         // a killed process exits with an error by design
	s.cmd = nil
}

// Restart starts the server (again) with its arguments, port and directory,
// and waits until it answers PING, its append-only file loaded.
func (s *Server) Restart() {
	s.t.Helper()
	if s.cmd != nil {
		s.t.Fatalf("redis-server on %s is already running", s.Addr)
	}
	cmd := exec.Command(s.bin, s.argv...)
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.cmd = cmd
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second) // a test suite's call: no request's
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s did not answer: %v", s.Addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StartCluster runs a Redis Cluster of three masters (no replicas), made
// with `redis-cli --cluster create` as an operator would, and returns a
// cluster client on it. Skipped, saying why, without redis-server or
// redis-cli.
func StartCluster(t testing.TB) *redis.ClusterClient {
	t.Helper()
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli is not installed (it comes with redis-server; .ci/run installs it): this test needs a real Redis Cluster")
	}
	var addrs []string
	for range 3 {
		c := Start(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000")
		addrs = append(addrs, c.Options().Addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	t.Cleanup(func() { _ = rdb.Close() })
	// The cluster is usable once every node says that all slots are served
	// and the client has their map.
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := clusterReady(addrs)
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second) // a test suite's call: no request's
			rdb.ReloadState(ctx)
			err = rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() })
			cancel()
			if err == nil {
				return rdb
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster did not come up: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// clusterReady asks every node whether it serves the whole cluster.
func clusterReady(addrs []string) error {
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second) // a test suite's call: no request's
		info, err := c.ClusterInfo(ctx).Result()
		cancel()
		if cerr := c.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_ok:16384") || !strings.Contains(info, "cluster_known_nodes:3") {
			return fmt.Errorf("node %s: not ready: %s", a, strings.Fields(info)[0])
		}
	}
	return nil
}

// Connect returns a client on the server at addr, closed when the test ends.
func Connect(t testing.TB, addr string) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
