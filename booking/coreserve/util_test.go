package coreserve

import "github.com/shopspring/decimal"

func mustDec(s string) decimal.Decimal { return decimal.RequireFromString(s) }
