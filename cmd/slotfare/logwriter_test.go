package main

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuffer) snapshot() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String(), s.writes
}

func TestLogWriterBatchesAndFlushes(t *testing.T) {
	out := &syncBuffer{}
	lw := newLogWriter(out)
	log := slog.New(flushingHandler{slog.NewJSONHandler(lw, nil), lw})
	for i := 0; i < 100; i++ {
		log.Info("request", "i", i)
	}
	log.Error("boom")
	got, writes := out.snapshot()
	// 101 lines reach the writer in a few system calls (one, or a few more
	// if the periodic flush ran meanwhile), and the error is among them.
	if strings.Count(got, "\n") != 101 || !strings.Contains(got, `"msg":"boom"`) || writes > 5 {
		t.Fatalf("after an error: %d lines in %d writes", strings.Count(got, "\n"), writes)
	}
	log.Info("later")
	deadline := time.Now().Add(5 * time.Second)
	for {
		if got, _ := out.snapshot(); strings.Contains(got, "later") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the periodic flush never wrote the last line")
		}
		time.Sleep(10 * time.Millisecond)
	}
	log.With("k", "v").Info("on close")
	lw.Close()
	lw.Close()
	if got, _ := out.snapshot(); !strings.Contains(got, `"msg":"on close","k":"v"`) {
		t.Fatalf("Close lost a line: %s", got)
	}
}
