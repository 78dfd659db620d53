module slotfare

go 1.26.8

require (
	github.com/shopspring/decimal v1.6.0
	gonum.org/v1/gonum v0.17.0
)
