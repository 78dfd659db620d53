package pricing

import (
	"testing"
	"time"
)

func TestVarTmp(t *testing.T) {
	jobs, tn := readTrace(t, sp2Trace)
	for _, day := range []int64{5, 10, 15, 20, 25, 30, 35, 40} {
		for _, pol := range []BackfillPolicy{BackfillEASY, BackfillConservative} {
			q := cutSnapshot(jobs, tn, day*86400, 430, 500, pol)
			t0 := time.Now()
			p, _ := NewDelayPricer(q)
			t1 := time.Now()
			qs, _ := p.Quotes(64, 4*3600)
			t2 := time.Now()
			_, _ = p.Premium(64, 4*3600, q.Now+3600)
			t3 := time.Now()
			t.Logf("day %d %s running %d plan %v quotes %d in %v premium %v end %dh", day, pol, len(q.Running), t1.Sub(t0), len(qs), t2.Sub(t1), t3.Sub(t2), (p.end-q.Now)/3600)
		}
	}
}
