package main

import (
	"io"
	"strings"

	"slotfare/pricing"
)

// limitsOutput is the JSON of `slotfare limits` (API.md).
type limitsOutput struct {
	ProtectionLevels []float64 `json:"protection_levels"`
	BookingLimits    []int     `json:"booking_limits"`
}

func init() {
	register("limits", command{
		summary: "what-if: nested booking limits per fare class (EMSR-a, EMSR-b, thesis Alg. 11)",
		run:     runLimits,
	})
}

// runLimits answers `slotfare limits --method M --capacity C --fares f1,..
// --means m1,.. --sds s1,.. [--overbook-limit OB]` with pricing.Allocate,
// or pricing.AllocateOverbooked (seed 004 Alg. 14) when OB is given.
func runLimits(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("limits", stderr)
	method := fs.String("method", "", "emsr-a | emsr-b | thesis (thesis: Alg. 11, exactly three classes)")
	capacity := fs.String("capacity", "", "units `C` to share (> 0)")
	fares := fs.String("fares", "", "fare of each class, highest first, strictly decreasing: `f1,f2,..`")
	means := fs.String("means", "", "mean demand of each class: `m1,m2,..`")
	sds := fs.String("sds", "", "standard deviation of each class's demand (>= 0): `s1,s2,..`")
	ob := fs.String("overbook-limit", "", "overbooking limit `OB` >= C: b_1 becomes OB (Alg. 14)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var bad flagProblems
	bad.require(fs, "method", "capacity", "fares", "means", "sds")
	m, err := pricing.ParseLimitMethod(*method)
	if flagSet(fs, "method") {
		bad.add(flagError(err))
	}
	c, err := intFlag("capacity", *capacity)
	bad.add(err)
	f, err := listFlag("fares", *fares, 0)
	bad.add(err)
	mu, err := listFlag("means", *means, len(f))
	bad.add(err)
	sd, err := listFlag("sds", *sds, len(f))
	bad.add(err)
	var limit int
	if flagSet(fs, "overbook-limit") {
		limit, err = intFlag("overbook-limit", *ob)
		bad.add(err)
	}
	if err := bad.err(); err != nil {
		return err
	}
	classes := make([]pricing.ClassDemand, len(f))
	for i := range f {
		classes[i] = pricing.ClassDemand{Fare: f[i], Mean: mu[i], SD: sd[i]}
	}
	var a pricing.Allocation
	if flagSet(fs, "overbook-limit") {
		a, err = pricing.AllocateOverbooked(m, c, limit, classes)
		if err != nil {
			return flagError(err)
		}
	} else if a, err = pricing.Allocate(m, c, classes); err != nil {
		return flagError(err)
	}
	return writeJSON(stdout, limitsOutput{ProtectionLevels: a.ProtectionLevels, BookingLimits: a.BookingLimits})
}

// listFlag reads a comma-separated list of numbers; want > 0 is the number
// of values it must have (one per fare).
func listFlag(name, s string, want int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if want > 0 && len(parts) != want {
		return nil, badFlag(name, "has %d values for %d fares", len(parts), want)
	}
	out := make([]float64, len(parts))
	for i, p := range parts {
		v, err := floatFlag(name, p)
		if err != nil {
			return nil, badFlag(name, "value %d: want a number, got %q", i+1, p)
		}
		out[i] = v
	}
	return out, nil
}
