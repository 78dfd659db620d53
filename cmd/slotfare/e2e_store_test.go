package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slotfare/booking/logstore"
)

// runBinary runs the real binary to its end (at most a minute) and returns
// its exit code, stdout and stderr.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, slotfareBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("slotfare %s did not end within a minute\nstderr:\n%s", strings.Join(args, " "), stderr.String())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// commitSome books and commits n one-hour premium bookings on RAL.
func commitSome(t *testing.T, base string, n int) {
	t.Helper()
	start := nextWeekday(time.Now())
	for i := range n {
		q := map[string]any{
			"resource_id": "RAL", "earliest_start": start.Add(time.Duration(i) * time.Hour).Format(time.RFC3339),
			"latest_end": start.Add(time.Duration(i+1) * time.Hour).Format(time.RFC3339), "duration_seconds": 3600, "nodes": 1, "fare_class": "premium",
		}
		offers := offersFor(t, base, keyAlice, q)
		if len(offers) == 0 {
			t.Fatal("no offer")
		}
		b := holdOffer(t, base, keyAlice, offers[0].OfferID, fmt.Sprintf("store-e2e-%d", i))
		act(t, base, keyAlice, b.ID, "commit", 200)
	}
}

// TestE2EDamagedLogRefusesToStart: one flipped byte in an early batch of the
// log makes serve exit 2 at once, naming the file and the byte offset of the
// damaged line, without changing the file (the old serve cut the log there
// and started, dropping every later commit). store check reports the damage
// and what is intact (exit 1); once the byte is restored both are happy and
// the commits are all there.
func TestE2EDamagedLogRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir, "--store", "log")
	commitSome(t, s.base, 4)
	s.stop()

	path := filepath.Join(dir, logstore.FileName)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(orig, []byte("\n"))
	if len(lines) < 6 {
		t.Fatalf("only %d lines in the log", len(lines))
	}
	at := len(lines[0]) // the second line
	damaged := bytes.Clone(orig)
	damaged[at+len(lines[1])/2] ^= 0x04
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}

	code, _, stderr := runBinary(t, "serve", "--addr", "127.0.0.1:0", "--data", dir, "--store", "log")
	if code != 2 {
		t.Fatalf("serve on a damaged log exited %d, want 2\nstderr:\n%s", code, stderr)
	}
	if want := fmt.Sprintf("%s is damaged at byte offset %d, line 2", path, at); !strings.Contains(stderr, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, stderr)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, damaged) {
		t.Fatal("serve changed the damaged log")
	}

	code, stdout, stderr := runBinary(t, "store", "check", "--data", dir, "--store", "log")
	if code != 1 {
		t.Fatalf("store check on a damaged log exited %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"intact: 1 batches", fmt.Sprintf("damage: byte offset %d, line 2: checksum mismatch", at),
		fmt.Sprintf("after the damage: %d more lines, %d of them with a good checksum", len(lines)-3, len(lines)-3), "status: damaged"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("store check output lacks %q:\n%s", want, stdout)
		}
	}

	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runBinary(t, "store", "check", "--data", dir, "--store", "log"); code != 0 || !strings.Contains(stdout, "status: clean") {
		t.Fatalf("store check on the restored log exited %d\n%s%s", code, stdout, stderr)
	}
	s = startServer(t, dir, "--store", "log")
	var list struct {
		Data []bookingJSON `json:"data"`
	}
	do(t, s.base, "GET", "/v1/bookings?status=committed", keyAlice, nil).want(t, 200).json(t, &list)
	if len(list.Data) != 4 {
		t.Fatalf("%d committed bookings after the restart, want 4", len(list.Data))
	}
}

// TestE2ESecondServerOnOneDataDirectory: a second serve on a data directory
// in use exits 2 at once naming the directory and the first one's pid (the
// old one waited 5 s and said "boltstore.Open: timeout"), for both stores.
func TestE2ESecondServerOnOneDataDirectory(t *testing.T) {
	for _, kind := range []string{"bbolt", "log"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			first := startServer(t, dir, "--store", kind)
			code, _, stderr := runBinary(t, "serve", "--addr", "127.0.0.1:0", "--data", dir, "--store", kind)
			if code != 2 {
				t.Fatalf("second serve exited %d, want 2\nstderr:\n%s", code, stderr)
			}
			want := fmt.Sprintf("data directory %s is in use by another slotfare (pid %d)", dir, first.cmd.Process.Pid)
			if !strings.Contains(stderr, want) {
				t.Fatalf("stderr lacks %q:\n%s", want, stderr)
			}
			code, _, stderr = runBinary(t, "store", "check", "--data", dir, "--store", kind)
			if code != 2 || !strings.Contains(stderr, want) {
				t.Fatalf("store check on a directory in use exited %d:\n%s", code, stderr)
			}
		})
	}
}
