package runstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"slotfare/booking/runs"
)

// BenchPredict is one prediction on st (TCT and ETTS alternately) over a
// resource with 1000 runs of the profile, a third of them with transfers:
// the read of the newest DefaultRecent and forecast.PredictDuration.
func BenchPredict(b *testing.B, st runs.Store) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1000 {
		r := runs.Run{ID: fmt.Sprint("r", i), Profile: "blast", ResourceID: "RAL", Runtime: time.Duration(600+i%300) * time.Second,
			FinishedAt: t0.Add(time.Duration(i) * time.Minute)}
		if i%3 == 0 {
			r.Transfer, r.Bytes = 30*time.Second, 3e9
		}
		if _, _, err := st.Append(ctx, r, runs.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
	p := runs.NewPredictor(st, 0, 0)
	now := t0.Add(30 * 24 * time.Hour)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, err := p.Predict(ctx, "RAL", "blast", int64(i%2)*1e9, now, now); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
