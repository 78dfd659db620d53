package dirlock

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAcquire: the second lock on a directory is refused at once naming the
// holder's pid; the lock file holds it; after Release the directory locks again.
func TestAcquire(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, FileName))
	if strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Fatalf("lock file holds %q", b)
	}
	_, err = Acquire(dir)
	var inUse *InUse
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() || inUse.Dir != dir {
		t.Fatalf("second Acquire: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l, err = Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
}
