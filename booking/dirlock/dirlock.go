// Package dirlock keeps two slotfare processes off one data directory. Two
// writers on one bbolt store would wait on each other's file lock and then
// fail with a bare timeout, and a conversion (store convert) must not run
// beside a server; a lock file that names its holder lets the second one
// say at once who holds the directory.
package dirlock

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FileName is the lock file in a data directory. It holds the pid of the
// process that has it locked; it is left in place on release (removing it
// would let a third process lock a new file while a second still waits on
// the old one).
const FileName = "slotfare.lock"

// InUse is the answer when another process holds the directory.
type InUse struct {
	Dir string
	PID int // 0 if the holder has not written it yet
}

func (e *InUse) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("data directory %s is in use by another slotfare", e.Dir)
	}
	return fmt.Sprintf("data directory %s is in use by another slotfare (pid %d)", e.Dir, e.PID)
}

// Lock is a held data directory.
type Lock struct{ f *os.File }

// Acquire locks dir (which must exist) without waiting, and writes this
// process's pid into the lock file. When another open file holds it (another
// process, or another store in this one) it returns *InUse.
func Acquire(dir string) (*Lock, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	if !held {
		b, _ := os.ReadFile(f.Name())
		f.Close()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return nil, &InUse{Dir: abs, PID: pid}
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Lock{f: f}, nil
}

// Release unlocks the directory (closing the file drops the lock).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
