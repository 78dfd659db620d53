package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare/booking/dirlock"
	"slotfare/booking/logconvert"
)

// v0LogDir holds a data directory the log store wrote, with what the
// service answered then (manifest.json; booking/service/testdata/v0).
var v0LogDir = filepath.Join("..", "..", "booking", "service", "testdata", "v0", "log")

// dataWithV0Log returns a new data directory holding the v0 log.
func dataWithV0Log(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(v0LogDir, logconvert.FileName))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, logconvert.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestStoreConvertRefusals: bad usage and every refusal exit 2 with a
// message saying why, and leave the log where it was.
func TestStoreConvertRefusals(t *testing.T) {
	empty := t.TempDir()
	inUse := dataWithV0Log(t)
	lock, err := dirlock.Acquire(inUse)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	damaged := dataWithV0Log(t)
	log := filepath.Join(damaged, logconvert.FileName)
	b, _ := os.ReadFile(log)
	b[bytes.IndexByte(b, '\n')+30] ^= 0x04
	if err := os.WriteFile(log, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"store", "convert"}, "--data: is required"},
		{[]string{"store", "convert", "--data", filepath.Join(empty, "nope")}, "--data: is not a directory"},
		{[]string{"store", "convert", "--data", empty, "extra"}, "unexpected argument extra"},
		{[]string{"store", "convert", "--data", empty, "--store", "log"}, "--store: not a flag of slotfare store convert"},
		{[]string{"store", "convert", "--data", empty}, empty + " holds no slotfare.log: nothing to convert"},
		{[]string{"store", "convert", "--data", inUse}, "is in use by another slotfare"},
		{[]string{"store", "convert", "--data", damaged}, "refusing to convert: " + log + " is damaged at byte offset"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q (want 2 and %q)", tc.args, code, stderr.String(), tc.want)
		}
	}
	for _, dir := range []string{inUse, damaged} {
		if _, err := os.Stat(filepath.Join(dir, logconvert.FileName)); err != nil {
			t.Errorf("the log of a refused conversion moved: %v", err)
		}
	}
}

// TestStoreConvertServesTheSameAnswers converts the v0 log, then serves the
// directory (bbolt, the default) at the instant the log was written: the
// bookings read as the log store's service answered them, alice's invoice
// bills the committed booking's charge, the resource configured over the
// API and the keys created over it are there, and an offer signed then is
// still accepted. A second conversion refuses, and so does one with the log
// put back.
func TestStoreConvertServesTheSameAnswers(t *testing.T) {
	dir := dataWithV0Log(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"store", "convert", "--data", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"read: " + filepath.Join(dir, "slotfare.log") + ", 9 batches",
		"2 bookings, 1 postings, 2 resources, 0 refusals, 2 keys, offer secret true", "verified:",
		"kept: the log, unchanged, as " + filepath.Join(dir, "slotfare.log.converted")} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	stderr.Reset()
	if code := run([]string{"store", "convert", "--data", dir}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "holds no slotfare.log") {
		t.Fatalf("second conversion: exit %d, %s", code, stderr.String())
	}
	if err := os.Link(filepath.Join(dir, logconvert.ConvertedName), filepath.Join(dir, logconvert.FileName)); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"store", "convert", "--data", dir}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "is there already, from an earlier conversion") {
		t.Fatalf("conversion with the log put back: exit %d, %s", code, stderr.String())
	}
	os.Remove(filepath.Join(dir, logconvert.FileName))
	checkV0Answers(t, dir)
}

// TestStoreConvertLastLogStore converts a log the last log store wrote
// (testdata/logstore: committed, cancelled, modified and held bookings of
// two accounts, keys created and revoked, resources configured and
// retired over the API) and serves it at the instant it was written: every
// GET answers byte for byte as the log store's service did (bookings,
// invoices, the ledger, keys, resources), and every POST /v1/bookings
// replayed with its Idempotency-Key gets its first answer again.
func TestStoreConvertLastLogStore(t *testing.T) {
	src := filepath.Join("testdata", "logstore")
	b, err := os.ReadFile(filepath.Join(src, logconvert.FileName))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, logconvert.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"store", "convert", "--data", dir}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "5 bookings, 6 postings, 2 resources, 0 refusals, 2 keys, offer secret true") {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	var m struct {
		Now      time.Time `json:"now"`
		CarolKey string    `json:"carol_key"`
		Posts    []struct {
			Key, Path, Idem string
			Body            json.RawMessage
			Status          int
			Answer          json.RawMessage
		} `json:"posts"`
		Gets []struct {
			Key, Path string
			Answer    json.RawMessage
		} `json:"gets"`
	}
	raw, err := os.ReadFile(filepath.Join(src, "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	srv, err := startService(context.Background(), serviceOptions{Addr: "127.0.0.1:0", DataDir: dir, Now: func() time.Time { return m.Now }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	base := "http://" + srv.Addr
	for _, g := range m.Gets {
		sameAnswer(t, g.Path, do(t, base, "GET", g.Path, g.Key, nil).want(t, 200).body, g.Answer)
	}
	for _, p := range m.Posts {
		sameAnswer(t, "replay of "+p.Idem, do(t, base, "POST", p.Path, p.Key, []byte(p.Body), "Idempotency-Key", p.Idem).want(t, p.Status).body, p.Answer)
	}
	do(t, base, "GET", "/v1/bookings", m.CarolKey, nil).want(t, 200)
}

// checkV0Answers serves dir at the v0 manifest's instant and compares the
// answers with the manifest's.
func checkV0Answers(t *testing.T, dir string) {
	t.Helper()
	var m struct {
		Now          time.Time                  `json:"now"`
		Keys         map[string]string          `json:"keys"`
		Offer        map[string]json.RawMessage `json:"offer"`
		Committed    json.RawMessage            `json:"committed"`
		Held         json.RawMessage            `json:"held"`
		X1           json.RawMessage            `json:"x1"`
		AliceBalance map[string]string          `json:"alice_balance"`
	}
	raw, err := os.ReadFile(filepath.Join(v0LogDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	srv, err := startService(context.Background(), serviceOptions{Addr: "127.0.0.1:0", DataDir: dir, Now: func() time.Time { return m.Now }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	base := "http://" + srv.Addr
	for _, want := range []json.RawMessage{m.Committed, m.Held} {
		var b struct {
			ID string `json:"booking_id"`
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		sameAnswer(t, "booking "+b.ID, do(t, base, "GET", "/v1/bookings/"+b.ID, keyAlice, nil).want(t, 200).body, want)
	}
	sameAnswer(t, "resource X1", do(t, base, "GET", "/v1/resources/X1", keyProvider, nil).want(t, 200).body, m.X1)
	do(t, base, "GET", "/v1/resources/X2", keyProvider, nil).want(t, 404)
	var inv struct {
		Data []struct {
			Total string `json:"total"`
			Lines []struct {
				Kind      string `json:"kind"`
				BookingID string `json:"booking_id"`
			} `json:"lines"`
		} `json:"data"`
	}
	do(t, base, "GET", "/v1/invoices?account_id=alice", keyBilling, nil).want(t, 200).json(t, &inv)
	if len(inv.Data) != 1 || len(inv.Data[0].Lines) != 1 || inv.Data[0].Lines[0].Kind != "charge" ||
		!strings.Contains(string(m.Committed), inv.Data[0].Lines[0].BookingID) || !sameAmount(inv.Data[0].Total, m.AliceBalance["GRD"]) {
		t.Errorf("alice's invoices %+v; want one charge of the committed booking, total %s", inv.Data, m.AliceBalance["GRD"])
	}
	do(t, base, "GET", "/v1/bookings", m.Keys["broker"], nil).want(t, 200)
	do(t, base, "GET", "/v1/invoices?account_id=alice", m.Keys["billing2"], nil).want(t, 200)
	var offerID string
	if err := json.Unmarshal(m.Offer["offer_id"], &offerID); err != nil {
		t.Fatal(err)
	}
	do(t, base, "POST", "/v1/bookings", keyAlice, map[string]string{"offer_id": offerID}, "Idempotency-Key", "after-convert").want(t, 201)
}

// sameAnswer compares two JSON documents, both compacted.
func sameAnswer(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	ga, _ := json.Marshal(dropReadTerms(a))
	wb, _ := json.Marshal(b)
	if string(ga) != string(wb) {
		t.Errorf("%s:\n got %s\nwant %s", what, ga, wb)
	}
}

// dropReadTerms removes from v the terms a booking stored before bookings
// carried them is read with (source "configuration"), which the answers of
// the versions that stored them lack.
func dropReadTerms(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if t, ok := x["terms"].(map[string]any); ok && t["source"] == "configuration" {
			delete(x, "terms")
		}
		for k, e := range x {
			x[k] = dropReadTerms(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropReadTerms(e)
		}
	}
	return v
}

// sameAmount compares two decimal strings ("23814" and "23814.00").
func sameAmount(a, b string) bool {
	x, errA := decimal.NewFromString(a)
	y, errB := decimal.NewFromString(b)
	return errA == nil && errB == nil && x.Equal(y)
}
