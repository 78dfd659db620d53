module slotfare

go 1.26.8

require (
	github.com/shopspring/decimal v1.6.0
	go.etcd.io/bbolt v1.4.3
	gonum.org/v1/gonum v0.17.0
)

require golang.org/x/sys v0.29.0 // indirect
