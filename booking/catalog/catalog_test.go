package catalog_test

import (
	"testing"

	"slotfare/booking/catalog"
	"slotfare/booking/internal/catalogtest"
)

func TestMemoryContract(t *testing.T) {
	catalogtest.Run(t, func(t *testing.T) catalog.Port { return catalog.NewMemory() })
}
