package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/overbook"
)

// overbookOutput is the JSON of `slotfare overbook` (API.md).
type overbookOutput struct {
	Policy             overbook.Policy `json:"policy"`
	Limit              int             `json:"limit"`
	ExpectedNetRevenue string          `json:"expected_net_revenue"`
	ServiceLevel       float64         `json:"service_level"`
}

func init() {
	register("overbook", command{
		summary: "what-if: the overbooking limit of a policy, its expected net revenue and service level",
		run:     runOverbook,
	})
}

// runOverbook answers `slotfare overbook --policy P --capacity C --price P
// --denied-cost D --show-rate Q [--service-level S]` with overbook.Limit.
// The risk policy assumes demand always exceeds the limit (A = 0, as in
// seed 004's Table 7.4). The inputs are bounded as overbook bounds them (a
// show rate of at least overbook.MinShowRate, a service level of at most
// overbook.MaxServiceLevel), and the limit never passes
// overbook.LimitCeiling; anything else is a usage error (exit 2).
func runOverbook(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("overbook", stderr)
	policy := fs.String("policy", "", "probability | risk | service-level (or none)")
	capacity := fs.String("capacity", "", "nodes `C` of the resource (> 0)")
	price := fs.String("price", "", "price `P` of one booked node (decimal, > 0)")
	deniedCost := fs.String("denied-cost", "", "compensation `D` for one denied node (decimal; > price for risk)")
	showRate := fs.String("show-rate", "", fmt.Sprintf("probability `Q` in [%v, 1] that a booking shows up", overbook.MinShowRate))
	level := fs.String("service-level", "", fmt.Sprintf("largest expected share `S` of denied shows, in (0, %v] (service-level policy)", overbook.MaxServiceLevel))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var bad flagProblems
	bad.require(fs, "policy", "capacity", "price", "denied-cost", "show-rate")
	pol, err := overbook.ParsePolicy(*policy)
	if flagSet(fs, "policy") {
		bad.add(flagError(err))
	}
	p := overbook.Params{}
	p.Capacity, err = intFlag("capacity", *capacity)
	bad.add(err)
	p.Price, err = decimalFlag("price", *price)
	bad.add(err)
	p.DeniedCost, err = decimalFlag("denied-cost", *deniedCost)
	bad.add(err)
	p.ShowRate, err = floatFlag("show-rate", *showRate)
	bad.add(err)
	if pol == overbook.ServiceLevel {
		bad.require(fs, "service-level")
	}
	if flagSet(fs, "service-level") {
		p.ServiceLevel, err = floatFlag("service-level", *level)
		bad.add(err)
	}
	if err := bad.err(); err != nil {
		return err
	}
	r, err := overbook.Limit(pol, p)
	if err != nil {
		return flagError(err)
	}
	return writeJSON(stdout, overbookOutput{
		Policy:             r.Policy,
		Limit:              r.Limit,
		ExpectedNetRevenue: r.ExpectedNetRevenue.String(),
		ServiceLevel:       r.ServiceLevel,
	})
}

// flagError renames the field of an Invalid error from a library (show_rate,
// classes[2].fare) to the flag that carried it (--show-rate, --fares, with
// the value's position), so the user sees which flag to fix.
func flagError(err error) error {
	var e *slotfare.Error
	if slotfare.KindOf(err) != slotfare.Invalid || !errors.As(err, &e) || e.Field == "" {
		return err
	}
	name, note := e.Field, ""
	if rest, ok := strings.CutPrefix(name, "classes["); ok {
		idx, item, _ := strings.Cut(rest, "].")
		n, _ := strconv.Atoi(idx)
		note = fmt.Sprintf("value %d", n+1)
		name = map[string]string{"fare": "fares", "mean": "means", "sd": "sds"}[item]
	} else if name == "classes" {
		name = "fares"
	}
	name = strings.ReplaceAll(name, "_", "-")
	if note != "" {
		return badFlag(name, "%s: %s", note, e.Msg)
	}
	return badFlag(name, "%s", e.Msg)
}

// badFlag is a usage error on the flag called name; its field is the flag
// as typed (--name), which is also how the message names it, once.
func badFlag(name, format string, args ...any) error {
	return &slotfare.Error{Kind: slotfare.Invalid, Field: "--" + name, Msg: fmt.Sprintf(format, args...)}
}

func intFlag(name, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, badFlag(name, "want a whole number, got %q", s)
	}
	return n, nil
}

func floatFlag(name, s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, badFlag(name, "want a number, got %q", s)
	}
	return f, nil
}

func decimalFlag(name, s string) (decimal.Decimal, error) {
	d, err := decimal.NewFromString(strings.TrimSpace(s))
	if err != nil {
		return decimal.Decimal{}, badFlag(name, "want a decimal amount, got %q", s)
	}
	return d, nil
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
