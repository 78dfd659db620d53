package idem_test

import (
	"testing"

	"slotfare/booking/idem"
	"slotfare/booking/internal/idemtest"
)

func TestMemoryContract(t *testing.T) {
	idemtest.Run(t, func(t *testing.T) idem.Port { return idem.NewMemory() })
}
