package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"slotfare/booking"
	"slotfare/booking/boltstore"
)

// TestStoreCheckUsage: bad usage exits 2 and names the flag.
func TestStoreCheckUsage(t *testing.T) {
	empty := t.TempDir()
	oldLog := dataWithV0Log(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"store", "check"}, "--data: is required"},
		{[]string{"store", "check", "--data", empty, "--store", "sqlite"}, `--store: must be bbolt, not "sqlite"`},
		{[]string{"store", "check", "--data", filepath.Join(empty, "nope")}, "--data: is not a directory"},
		{[]string{"store", "check", "--data", empty, "--store", "log"}, "--store: the log store is gone: run 'slotfare store convert --data DIR'"},
		{[]string{"store", "check", "--data", empty}, "holds no slotfare.db"},
		{[]string{"store", "check", "--data", oldLog}, "holds slotfare.log, written by the old log store; run 'slotfare store convert --data " + oldLog + "'"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q (want 2 and %q)", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestStoreCheckBolt: a clean bbolt store checks clean (exit 0) with its
// counts; with one value's byte flipped it reports the damage with the file,
// the offset and the record, and exits 1, leaving the file as it was.
func TestStoreCheckBolt(t *testing.T) {
	dir := t.TempDir()
	s, err := boltstore.Open(dir, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b1", "b2", "b3"} {
		if err := s.Write(context.Background(), booking.Batch{Bookings: []booking.Record{checkRecord(id)}}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"store", "check", "--data", dir}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "intact: 3 bookings") || !strings.Contains(stdout.String(), "status: clean") {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	path := filepath.Join(dir, boltstore.FileName)
	b, _ := os.ReadFile(path)
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(`"nodes":2`))
		if j < 0 {
			break
		}
		b[i+j+len(`"nodes":`)] = '7' // still JSON, another booking
		i += j + 1
	}
	os.WriteFile(path, b, 0o600)
	stdout.Reset()
	stderr.Reset()
	code := run([]string{"store", "check", "--data", dir, "--store", "bbolt"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stdout.String(), "damage: "+path+" is damaged at byte offset ") ||
		!strings.Contains(stdout.String(), "checksum mismatch") || !strings.Contains(stdout.String(), "status: damaged") {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Fatal("store check changed the file")
	}
}

func checkRecord(id string) booking.Record {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	return booking.Record{Booking: booking.Booking{ID: id, AccountID: "alice", Status: booking.Held, ResourceID: "RAL",
		Start: t0, End: t0.Add(time.Hour), Nodes: 2, FareClass: "budget", CreatedAt: t0, UpdatedAt: t0}, Groups: 1}
}
