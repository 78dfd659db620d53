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
// at least its share of the shows), so the search gallops and bisects.
func ServiceLevelLimit(capacity int, showRate, threshold float64) (int, error) {
	const op = "overbook.ServiceLevelLimit"
	if err := checkCommon(op, capacity, showRate); err != nil {
		return 0, err
	}
	if math.IsNaN(threshold) || threshold <= 0 || threshold >= 1 {
		return 0, slotfare.Errorf(op, "service_level", "must be in (0, 1), got %v", threshold)
	}
	within := func(ob int) (bool, error) {
		return serviceLevel(ob, capacity, showRate) <= threshold, nil
	}
	past, found, _ := firstFailing(capacity, within)
	if !found {
		return 0, errTooLarge(op, showRate)
	}
	return past - 1, nil
}
