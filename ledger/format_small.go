package ledger

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// formatSmallAmount is formatAmount for the amounts a booking carries,
// whose coefficient and shifted coefficient fit in 18 digits: integer
// arithmetic instead of the big.Int rounding and printing StringFixed does,
// which was a few percent of a flow's CPU (docs/benchmarks.md). ok is false
// for any other amount, which formatAmount formats the general way.
func formatSmallAmount(d decimal.Decimal, scale int32) (string, bool) {
	n := d.NumDigits()
	if scale < 0 || scale > 18 || n > 18 {
		return "", false
	}
	c, e := d.CoefficientInt64(), -d.Exponent()
	places := scale
	switch {
	case e > scale:
		// More digits than the currency has: dropped when they are zeros,
		// all kept when not (formatting never loses money).
		drop := pow10(e - scale)
		if drop == 0 {
			return "", false
		}
		if c%drop == 0 {
			c /= drop
		} else {
			places = e
		}
	case e < scale:
		up := pow10(scale - e)
		if up == 0 || n+int(scale-e) > 18 {
			return "", false
		}
		c *= up
	}
	return fixedString(c, places), true
}

// pow10 is 10^n for n in [0, 18], else 0.
func pow10(n int32) int64 {
	if n < 0 || n > 18 {
		return 0
	}
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// fixedString writes c * 10^-places with exactly places digits after the
// point ("-0.05" for -5 at 2 places).
func fixedString(c int64, places int32) string {
	var buf [48]byte
	b := buf[:0]
	u := uint64(c)
	if c < 0 {
		b = append(b, '-')
		u = -u
	}
	var digits [24]byte
	ds := strconv.AppendUint(digits[:0], u, 10)
	p := int(places)
	if len(ds) <= p {
		b = append(b, '0')
		if p > 0 {
			b = append(b, '.')
			for range p - len(ds) {
				b = append(b, '0')
			}
			b = append(b, ds...)
		}
		return string(b)
	}
	b = append(b, ds[:len(ds)-p]...)
	if p > 0 {
		b = append(b, '.')
		b = append(b, ds[len(ds)-p:]...)
	}
	return string(b)
}
