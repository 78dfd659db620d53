package overbook

import (
	"math"

	"slotfare"
)

// ServiceLevelLimit is the service-level policy: the largest ob whose
// service level s(ob), the expected denied shows over the expected shows, is
// still at most threshold (seed 004, Sec. 7.5.3, Alg. 13, Eq. 7.5-7.8).
//
// Alg. 13 as printed returns the first ob past the threshold; Table 7.5
// lists the last one within it, and so does this function (errata in
// seeds/README.md). s(C) = 0, so the answer is never below C. s only grows
// with ob (each extra booking adds q P(B >= C) to the denied mean, which is
// at least its share of the shows), so the search gallops and bisects. The
// limit is capped at LimitCeiling(C): a loose threshold at a low show rate
// would otherwise sell about four times the nodes.
func ServiceLevelLimit(capacity int, showRate, threshold float64) (int, error) {
	const op slotfare.Op = "overbook.ServiceLevelLimit"
	if err := checkCommon(op, capacity, showRate); err != nil {
		return 0, err
	}
	if math.IsNaN(threshold) || threshold <= 0 || threshold > MaxServiceLevel {
		return 0, slotfare.Errorf(op, "service_level",
			"must be in (0, %v], got %v: it is the largest expected share of the shows that are denied (seed 004 Sec. 7.5.3), and above one half more shows would be denied than served",
			MaxServiceLevel, threshold)
	}
	within := func(ob int) (bool, error) {
		return serviceLevel(ob, capacity, showRate) <= threshold, nil
	}
	past, err := firstFailing(capacity, LimitCeiling(capacity), within)
	if err != nil {
		return 0, err
	}
	return past - 1, nil
}
