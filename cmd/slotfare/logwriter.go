package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logWriter batches log lines into fewer write system calls: one request
// line per request would otherwise be one write(2) each, a measurable share
// of the server's CPU under load (bench api; the git history of
// docs/benchmarks.md and README.md). Lines are flushed every flushEvery,
// when the buffer fills, at Close, and at once for warnings and errors (see
// flushingHandler), so what explains a failure is never held back. A kill -9
// can lose at most flushEvery of request lines.
type logWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

const flushEvery = 100 * time.Millisecond

func newLogWriter(w io.Writer) *logWriter {
	lw := &logWriter{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(lw.done)
		t := time.NewTicker(flushEvery)
		defer t.Stop()
		for {
			select {
			case <-lw.stop:
				return
			case <-t.C:
				lw.Flush()
			}
		}
	}()
	return lw
}

// Write appends whole lines (slog writes one record per call).
func (lw *logWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(p)
}

// Flush writes out what is buffered.
func (lw *logWriter) Flush() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.w.Flush()
}

// Close stops the flusher and flushes the rest.
func (lw *logWriter) Close() {
	select {
	case <-lw.stop:
	default:
		close(lw.stop)
		<-lw.done
	}
	lw.Flush()
}

// flushingHandler flushes the writer after every record at warning level or
// above, so those are on disk (or the terminal) before anything else happens.
type flushingHandler struct {
	slog.Handler
	lw *logWriter
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.lw.Flush()
	}
	return err
}

func (h flushingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(as), h.lw}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.lw}
}
