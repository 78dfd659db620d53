package service_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/logconvert"
	"slotfare/booking/service"
)

// TestLoadsDataWrittenBeforeTheSplit opens data directories written by the
// code before package booking was split (commit 5aa2783, whose stores kept
// a resource's configuration as a typed field rather than opaque JSON): a
// bbolt file, and a log of the log store moved into bbolt as slotfare store
// convert does, made by testdata/v0/genv0_test.go.txt, with what that code
// answered in manifest.json. Every part of the state must come back as it
// was: resources configured over the API with every field set (one
// retired), API keys with and without a VO, a committed booking with its
// charge, a hold, and the offer-signing secret (an offer made then is still
// accepted).
func TestLoadsDataWrittenBeforeTheSplit(t *testing.T) {
	for _, kind := range []string{"bbolt", "log"} {
		t.Run(kind, func(t *testing.T) {
			src := filepath.Join("testdata", "v0", kind)
			dir := t.TempDir()
			for _, name := range []string{boltstore.FileName, logconvert.FileName} {
				if b, err := os.ReadFile(filepath.Join(src, name)); err == nil {
					if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			raw, err := os.ReadFile(filepath.Join(src, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Now          time.Time                  `json:"now"`
				Keys         map[string]string          `json:"keys"`
				Offer        map[string]json.RawMessage `json:"offer"`
				Committed    json.RawMessage            `json:"committed"`
				Held         json.RawMessage            `json:"held"`
				X1           json.RawMessage            `json:"x1"`
				AliceBalance map[string]string          `json:"alice_balance"`
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			if kind == "log" {
				if _, err := logconvert.Convert(context.Background(), dir); err != nil {
					t.Fatal(err)
				}
			}
			st, err := boltstore.Open(dir, boltstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.DecodeConfig(slotfare.DemoConfig)
			if err != nil {
				t.Fatal(err)
			}
			svc, err := service.Open(cfg, deploytest.Embedded(t, st), service.Options{Now: func() time.Time { return m.Now }})
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			ctx := context.Background()
			prov := booking.Principal{AccountID: "provider", Role: booking.RoleProvider}
			alice := booking.Principal{AccountID: "alice", Role: booking.RoleUser, VO: "1"}

			x1, err := svc.Resource(ctx, prov, "X1")
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "resource X1", x1, m.X1)
			if _, err := svc.Resource(ctx, prov, "X2"); slotfare.KindOf(err) != slotfare.NotFound {
				t.Errorf("retired X2: %v, want NotFound", err)
			}
			for name, want := range map[string]booking.Principal{
				"broker":   {AccountID: "broker", Role: booking.RoleUser, VO: "atlas"},
				"billing2": {AccountID: "billing", Role: booking.RoleBilling},
			} {
				if got, err := svc.Authenticate(bg, m.Keys[name]); err != nil || got != want {
					t.Errorf("key %s: %+v, %v; want %+v", name, got, err, want)
				}
			}
			for _, want := range []json.RawMessage{m.Committed, m.Held} {
				var b struct {
					ID string `json:"booking_id"`
				}
				if err := json.Unmarshal(want, &b); err != nil {
					t.Fatal(err)
				}
				got, err := svc.Get(ctx, alice, b.ID)
				if err != nil {
					t.Fatal(err)
				}
				// Stored before bookings carried their terms: read with its
				// class's as configured, and saying so.
				if got.Terms == nil || got.Terms.Source != booking.TermsFromConfiguration || !got.Terms.NoShowPenaltyRate.Equal(decimal.RequireFromString("0.25")) {
					t.Errorf("booking %s read with terms %+v, want the budget class's from the configuration", b.ID, got.Terms)
				}
				got.Terms = nil
				sameJSON(t, "booking "+b.ID, got, want)
			}
			bal, err := svc.Balance(ctx, booking.Principal{AccountID: "billing", Role: booking.RoleBilling}, "alice")
			if err != nil {
				t.Fatal(err)
			}
			if len(bal) != len(m.AliceBalance) || bal["GRD"].String() != m.AliceBalance["GRD"] {
				t.Errorf("alice's balance %v, want %v", bal, m.AliceBalance)
			}
			var offerID string
			if err := json.Unmarshal(m.Offer["offer_id"], &offerID); err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc.Hold(ctx, alice, booking.HoldRequest{OfferID: offerID}, booking.Idempotency{}); err != nil {
				t.Errorf("holding an offer made before the split: %v", err)
			}
		})
	}
}

// sameJSON compares got's JSON with want's, both compacted.
func sameJSON(t *testing.T, what string, got any, want json.RawMessage) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(g, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	ga, _ := json.Marshal(a)
	wb, _ := json.Marshal(b)
	if string(ga) != string(wb) {
		t.Errorf("%s:\n got %s\nwant %s", what, ga, wb)
	}
}
