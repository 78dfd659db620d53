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

	"slotfare/booking/boltstore"
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

// TestE2EDamagedStoreRefusesToStart: a changed byte in a stored booking
// makes serve exit 2 at once, naming the file and the damage, without
// changing the file. store check reports the damage (exit 1); once the
// bytes are restored both are happy and the commits are all there.
func TestE2EDamagedStoreRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	commitSome(t, s.base, 4)
	s.stop()

	path := filepath.Join(dir, boltstore.FileName)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.ReplaceAll(orig, []byte(`"nodes":1,`), []byte(`"nodes":7,`)) // still JSON, another booking
	if bytes.Equal(damaged, orig) {
		t.Fatal("no booking found in the store's file")
	}
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}

	code, _, stderr := runBinary(t, "serve", "--addr", "127.0.0.1:0", "--data", dir)
	if code != 2 {
		t.Fatalf("serve on a damaged store exited %d, want 2\nstderr:\n%s", code, stderr)
	}
	if want := path + " is damaged at byte offset "; !strings.Contains(stderr, want) || !strings.Contains(stderr, "slotfare store check --data "+dir) {
		t.Fatalf("stderr lacks %q and the hint to store check:\n%s", want, stderr)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, damaged) {
		t.Fatal("serve changed the damaged store")
	}
	code, stdout, stderr := runBinary(t, "store", "check", "--data", dir)
	if code != 1 || !strings.Contains(stdout, "checksum mismatch") || !strings.Contains(stdout, "status: damaged") {
		t.Fatalf("store check on a damaged store exited %d, want 1\n%s%s", code, stdout, stderr)
	}

	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runBinary(t, "store", "check", "--data", dir); code != 0 || !strings.Contains(stdout, "status: clean") {
		t.Fatalf("store check on the restored store exited %d\n%s%s", code, stdout, stderr)
	}
	s = startServer(t, dir)
	var list struct {
		Data []bookingJSON `json:"data"`
	}
	do(t, s.base, "GET", "/v1/bookings?status=committed", keyAlice, nil).want(t, 200).json(t, &list)
	if len(list.Data) != 4 {
		t.Fatalf("%d committed bookings after the restart, want 4", len(list.Data))
	}
}

// TestE2EOldLogDirectory: serve and store check refuse a directory the
// old log store wrote, and serve refuses --store log, each exiting 2 with
// the command that moves it; after slotfare store convert the real binary
// serves its bookings.
func TestE2EOldLogDirectory(t *testing.T) {
	dir := dataWithV0Log(t)
	hint := "slotfare store convert --data "
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--data", dir},
		{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--store", "log"},
		{"store", "check", "--data", dir},
		{"store", "check", "--data", dir, "--store", "log"},
	} {
		if code, _, stderr := runBinary(t, args...); code != 2 || !strings.Contains(stderr, hint) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", args, code, hint, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, boltstore.FileName)); err == nil {
		t.Fatal("a refused serve made a bbolt store")
	}
	if code, stdout, stderr := runBinary(t, "store", "convert", "--data", dir); code != 0 || !strings.Contains(stdout, "wrote: ") {
		t.Fatalf("store convert exited %d\n%s%s", code, stdout, stderr)
	}
	s := startServer(t, dir)
	var list struct {
		Data []bookingJSON `json:"data"`
	}
	do(t, s.base, "GET", "/v1/bookings", keyAlice, nil).want(t, 200).json(t, &list)
	if len(list.Data) != 2 {
		t.Fatalf("%d bookings after the conversion, want the log's 2", len(list.Data))
	}
}

// TestE2ESecondServerOnOneDataDirectory: a second serve on a data directory
// in use exits 2 at once naming the directory and the first one's pid (the
// old one waited 5 s and said "boltstore.Open: timeout"), and so does
// store check.
func TestE2ESecondServerOnOneDataDirectory(t *testing.T) {
	dir := t.TempDir()
	first := startServer(t, dir)
	code, _, stderr := runBinary(t, "serve", "--addr", "127.0.0.1:0", "--data", dir)
	if code != 2 {
		t.Fatalf("second serve exited %d, want 2\nstderr:\n%s", code, stderr)
	}
	want := fmt.Sprintf("data directory %s is in use by another slotfare (pid %d)", dir, first.cmd.Process.Pid)
	if !strings.Contains(stderr, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, stderr)
	}
	code, _, stderr = runBinary(t, "store", "check", "--data", dir)
	if code != 2 || !strings.Contains(stderr, want) {
		t.Fatalf("store check on a directory in use exited %d:\n%s", code, stderr)
	}
}
