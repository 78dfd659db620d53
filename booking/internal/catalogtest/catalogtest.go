// Package catalogtest is the contract every catalog.Port implementation
// passes.
package catalogtest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"slotfare"
	"slotfare/booking/catalog"
)

var bg = context.Background() // a test suite's call: no request's

// Run runs the contract on fresh ports from open.
func Run(t *testing.T, open func(t *testing.T) catalog.Port) {
	t.Run("Versions", func(t *testing.T) { versions(t, open(t)) })
	t.Run("RacingProviders", func(t *testing.T) { racingProviders(t, open(t)) })
	t.Run("OneSecret", func(t *testing.T) { oneSecret(t, open(t)) })
}

func put(t *testing.T, p catalog.Port, id, body string, replaces int64) int64 {
	t.Helper()
	v, err := p.Put(bg, id, []byte(body), replaces)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Bodies are stored resources (booking.ResourceRecord's JSON, as
// json.Marshal writes it), which is what the embedded catalog requires and
// the others keep as opaque bytes.
const (
	ral41 = `{"config":{"id":"RAL","nodes":41}}`
	ral40 = `{"config":{"id":"RAL","nodes":40}}`
)

func versions(t *testing.T, p catalog.Port) {
	if docs, v, err := p.All(bg); err != nil || len(docs) != 0 || v != 0 {
		t.Fatalf("empty catalog: %v %d %v", docs, v, err)
	}
	if v := put(t, p, "RAL", ral41, 0); v != 1 {
		t.Fatalf("first version %d", v)
	}
	if v := put(t, p, "RAL", ral41, 0); v != 1 { // a retry
		t.Fatalf("retry gave version %d", v)
	}
	_, err := p.Put(bg, "RAL", []byte(ral40), 0)
	if slotfare.KindOf(err) != slotfare.Conflict || slotfare.FieldOf(err) != "version" {
		t.Fatalf("a stale change: %v", err)
	}
	if v := put(t, p, "RAL", ral40, 1); v != 2 {
		t.Fatalf("second version %d", v)
	}
	put(t, p, "NIKHEF", `{"config":{"id":"NIKHEF","nodes":8}}`, 0)
	docs, v, err := p.All(bg)
	if err != nil || v != 3 || len(docs) != 2 || docs[0].ID != "NIKHEF" || docs[1].ID != "RAL" ||
		docs[1].Version != 2 || string(docs[1].Body) != ral40 {
		t.Fatalf("All = %+v, %d, %v", docs, v, err)
	}
	if v, err := p.Version(bg); err != nil || v != 3 {
		t.Fatalf("Version = %d, %v; want 3 (every change, no retry)", v, err)
	}
	if _, err := p.Put(bg, "", []byte("x"), 0); slotfare.FieldOf(err) != "id" {
		t.Fatalf("empty id: %v", err)
	}
}

func racingProviders(t *testing.T, p catalog.Port) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.Put(bg, "R", []byte(fmt.Sprintf(`{"config":{"id":"R","nodes":%d}}`, i+1)), 0)
			if err != nil && slotfare.KindOf(err) != slotfare.Conflict {
				t.Error(err)
			}
			if err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d providers changed one version", won)
	}
}

func oneSecret(t *testing.T, p catalog.Port) {
	var wg sync.WaitGroup
	got := make([][]byte, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := p.Secret(bg, bytes.Repeat([]byte{byte(i)}, 32))
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		}()
	}
	wg.Wait()
	for _, s := range got {
		if len(s) != 32 || !bytes.Equal(s, got[0]) {
			t.Fatalf("replicas got different secrets: %x and %x", s, got[0])
		}
	}
	if _, err := p.Secret(bg, []byte("short")); slotfare.KindOf(err) != slotfare.Invalid {
		t.Fatalf("short secret: %v", err)
	}
}
