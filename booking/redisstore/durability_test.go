package redisstore_test

import (
	"context"
	"strings"
	"testing"

	"slotfare"
	"slotfare/booking/redisstore"
	"slotfare/booking/redisstore/redistest"
)

// TestCheckDurability: a server without the append-only file synced on
// every write is refused, naming both settings; one with them passes; one
// whose CONFIG is disabled (managed Redis) passes with what could not be
// checked.
func TestCheckDurability(t *testing.T) {
	ctx := context.Background()
	loose := redistest.Start(t)
	_, err := redisstore.CheckDurability(ctx, loose)
	if slotfare.KindOf(err) != slotfare.Invalid || !strings.Contains(err.Error(), "appendonly") || !strings.Contains(err.Error(), "appendfsync") {
		t.Fatalf("a server without AOF: %v", err)
	}
	safe := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	if d, err := redisstore.CheckDurability(ctx, safe); err != nil || d.AppendOnly != "yes" || d.FSync != "always" {
		t.Fatalf("a durable server: %+v %v", d, err)
	}
	managed := redistest.Start(t, "--rename-command", "CONFIG", "")
	d, err := redisstore.CheckDurability(ctx, managed)
	if err != nil || d.Unchecked == "" {
		t.Fatalf("a server without CONFIG: %+v %v", d, err)
	}
}
