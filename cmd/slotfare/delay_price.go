package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	"slotfare"
	"slotfare/pricing"
)

func init() {
	register("delay-price", command{
		summary: "price a reservation by the delay it causes to the best-effort queue",
		run:     runDelayPrice,
	})
}

// maxScenarioBytes bounds a scenario file: MaxQueueJobs jobs take well under
// a megabyte.
const maxScenarioBytes = 16 << 20

// delayPremiumOut is the answer for one start (API.md): premium is null when
// the start is infeasible, and delays lists only delayed jobs, in seconds.
type delayPremiumOut struct {
	Feasible bool             `json:"feasible"`
	Premium  *json.Number     `json:"premium"`
	Delays   map[string]int64 `json:"delays"`
}

type delayQuoteOut struct {
	Start   int64       `json:"start"`
	Premium json.Number `json:"premium"`
}

type delayQuotesOut struct {
	Quotes []delayQuoteOut `json:"quotes"`
}

// runDelayPrice is `slotfare delay-price --scenario FILE`: the delay-based
// premium of seed 001 (Sec. 2, Fig. 2) for request.start, or the list of
// candidate starts with their premiums (Sec. 3) when the request has none.
// FILE "-" is the standard input, so a scenario can be piped in.
func runDelayPrice(args []string, stdout, stderr io.Writer) error {
	const op slotfare.Op = "" // run prefixes "slotfare delay-price"
	fs := newFlags("delay-price", stderr)
	file := fs.String("scenario", "", "scenario `FILE`: queue snapshot and request, JSON as in API.md; - reads the standard input")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := requireFlags(fs, "scenario"); err != nil {
		return err
	}
	var f io.Reader = os.Stdin
	if *file != "-" {
		fh, err := os.Open(*file)
		if err != nil {
			return slotfare.E(op, slotfare.Invalid, slotfare.Field("--scenario"), "cannot open the scenario file", err)
		}
		defer fh.Close()
		f = fh
	}
	data, err := io.ReadAll(io.LimitReader(f, maxScenarioBytes+1))
	if err != nil {
		return slotfare.E(op, slotfare.Invalid, slotfare.Field("--scenario"), "cannot read the scenario file", err)
	}
	if len(data) > maxScenarioBytes {
		return slotfare.Errorf(op, "--scenario", "file larger than %d bytes", maxScenarioBytes)
	}
	sc, err := pricing.ReadDelayScenario(bytes.NewReader(data))
	if err != nil {
		return err
	}
	p, err := pricing.NewDelayPricer(sc.QueueSnapshot)
	if err != nil {
		return err
	}
	req := sc.Request
	if req.Start != nil {
		prem, err := p.Premium(req.Nodes, req.Duration, *req.Start)
		if err != nil {
			return err
		}
		out := delayPremiumOut{Feasible: prem.Feasible, Delays: map[string]int64{}}
		if prem.Feasible {
			n := json.Number(prem.Premium.String())
			out.Premium = &n
			for _, d := range prem.Delays {
				out.Delays[d.ID] = d.Delay
			}
		}
		return writeJSON(stdout, out)
	}
	quotes, err := p.Quotes(req.Nodes, req.Duration)
	if err != nil {
		return err
	}
	out := delayQuotesOut{Quotes: make([]delayQuoteOut, len(quotes))}
	for i, q := range quotes {
		out.Quotes[i] = delayQuoteOut{Start: q.Start, Premium: json.Number(q.Premium.String())}
	}
	return writeJSON(stdout, out)
}
