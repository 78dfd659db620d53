package records_test

import (
	"testing"

	"slotfare/booking/internal/recordstest"
	"slotfare/booking/records"
)

func TestMemoryContract(t *testing.T) {
	recordstest.Run(t, func(t *testing.T) records.Port { return records.NewMemory() })
}
