package main

import (
	"slices"
	"testing"
)

type limitsResult struct {
	ProtectionLevels []float64 `json:"protection_levels"`
	BookingLimits    []int     `json:"booking_limits"`
}

func TestLimitsCommand(t *testing.T) {
	tests := []struct {
		args   []string
		levels []float64 // rounded to 3 places
		limits []int
	}{
		// RM2's published EMSR-b example (see pricing's tests).
		{[]string{"--method", "emsr-b", "--capacity", "400", "--fares", "250,150,100,50", "--means", "50,75,125,500",
			"--sds", "7.0710678118654755,8.660254037844387,11.180339887498949,22.360679774997898"},
			[]float64{48.209, 124.262, 256.314}, []int{400, 351, 275, 143}},
		{[]string{"--method", "emsr-a", "--capacity", "400", "--fares", "250,150,100,50", "--means", "50,75,125,500",
			"--sds", "7.0710678118654755,8.660254037844387,11.180339887498949,22.360679774997898"},
			[]float64{48.209, 123.061, 259.681}, []int{400, 351, 276, 140}},
		// Alg. 11 by hand (pricing's TestThesisAlgorithm11).
		{[]string{"--method", "thesis", "--capacity", "41", "--fares", "3.38,2.81,2.25", "--means", "10,20,30", "--sds", "3,5,8"},
			[]float64{8, 25}, []int{41, 33, 16}},
		// Alg. 14: b_1 = OB and the limits are computed on C+ = 47.
		{[]string{"--method", "thesis", "--capacity", "41", "--fares", "3.38,2.81,2.25", "--means", "10,20,30", "--sds", "3,5,8",
			"--overbook-limit", "47"}, []float64{8, 25}, []int{47, 39, 22}},
		// OB = C changes nothing. EMSR-b pools classes 1-2: mean 30, sd
		// sqrt(34), fare (33.8 + 56.2) / 30 = 3; y_2 = 30 + 5.831 z(0.25) =
		// 26.07, so b_3 = 41 - 27 = 14.
		{[]string{"--method", "emsr-b", "--capacity", "41", "--fares", "3.38,2.81,2.25", "--means", "10,20,30", "--sds", "3,5,8",
			"--overbook-limit", "41"}, []float64{7.121, 26.067}, []int{41, 33, 14}},
		// One class: nothing to protect.
		{[]string{"--method", "emsr-b", "--capacity", "9", "--fares", "5", "--means", "3", "--sds", "1"}, []float64{}, []int{9}},
		// Spaces around values are fine.
		{[]string{"--method", "emsr-a", "--capacity", "20", "--fares", "300, 200, 100", "--means", "5, 7, 40", "--sds", "0,0,0"},
			[]float64{5, 12}, []int{20, 15, 8}},
	}
	for _, tt := range tests {
		var got limitsResult
		runJSON(t, append([]string{"limits"}, tt.args...), &got)
		if got.ProtectionLevels == nil {
			t.Errorf("%q: protection_levels missing or null", tt.args)
		}
		if !slices.Equal(got.BookingLimits, tt.limits) {
			t.Errorf("%q: booking_limits %v, want %v", tt.args, got.BookingLimits, tt.limits)
		}
		if tt.levels != nil {
			rounded := make([]float64, len(got.ProtectionLevels))
			for i, y := range got.ProtectionLevels {
				rounded[i] = float64(int64(y*1000+0.5)) / 1000
			}
			if !slices.Equal(rounded, tt.levels) {
				t.Errorf("%q: protection_levels %v, want %v", tt.args, got.ProtectionLevels, tt.levels)
			}
		}
	}
}

func TestLimitsBadInput(t *testing.T) {
	args := func(method, capacity, fares, means, sds string, extra ...string) []string {
		a := []string{"limits"}
		for _, kv := range [][2]string{{"--method", method}, {"--capacity", capacity}, {"--fares", fares}, {"--means", means}, {"--sds", sds}} {
			if kv[1] != "-" {
				a = append(a, kv[0], kv[1])
			}
		}
		return append(a, extra...)
	}
	tests := []struct {
		args []string
		flag string
	}{
		{args("emsr-c", "10", "3,2", "1,1", "1,1"), "--method"},
		{args("-", "10", "3,2", "1,1", "1,1"), "--method"},
		{args("emsr-b", "0", "3,2", "1,1", "1,1"), "--capacity"},
		{args("emsr-b", "-4", "3,2", "1,1", "1,1"), "--capacity"},
		{args("emsr-b", "ten", "3,2", "1,1", "1,1"), "--capacity"},
		{args("emsr-b", "-", "3,2", "1,1", "1,1"), "--capacity"},
		{args("emsr-b", "10", "2,3", "1,1", "1,1"), "--fares"},
		{args("emsr-a", "10", "3,3", "1,1", "1,1"), "--fares"},
		{args("emsr-a", "10", "3,0", "1,1", "1,1"), "--fares"},
		{args("emsr-a", "10", "-3,-4", "1,1", "1,1"), "--fares"},
		{args("emsr-a", "10", "3,,1", "1,1,1", "1,1,1"), "--fares"},
		{args("emsr-a", "10", "3,x", "1,1", "1,1"), "--fares"},
		{args("emsr-a", "10", "-", "1,1", "1,1"), "--fares"},
		{args("emsr-b", "10", "3,2", "1", "1,1"), "--means"},
		{args("emsr-b", "10", "3,2", "1,1,1", "1,1"), "--means"},
		{args("emsr-b", "10", "3,2", "1,-1", "1,1"), "--means"},
		{args("emsr-b", "10", "3,2", "1,Inf", "1,1"), "--means"},
		{args("emsr-b", "10", "3,2", "-", "1,1"), "--means"},
		{args("emsr-b", "10", "3,2", "1,1", "1,-0.1"), "--sds"},
		{args("emsr-b", "10", "3,2", "1,1", "1"), "--sds"},
		{args("emsr-b", "10", "3,2", "1,1", "1,NaN"), "--sds"},
		{args("emsr-b", "10", "3,2", "1,1", "-"), "--sds"},
		{args("thesis", "10", "3,2", "1,1", "1,1"), "--fares"},
		{args("thesis", "10", "4,3,2,1", "1,1,1,1", "1,1,1,1"), "--fares"},
		{args("emsr-b", "10", "3,2", "1,1", "1,1", "--overbook-limit", "9"), "--overbook-limit"},
		{args("emsr-b", "10", "3,2", "1,1", "1,1", "--overbook-limit", "lots"), "--overbook-limit"},
		{args("emsr-b", "10", "3,2", "1,1", "1,1", "stray"), "unexpected argument"},
	}
	for _, tt := range tests {
		badInput(t, tt.args, tt.flag)
	}
}
