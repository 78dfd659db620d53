package apikey_test

import (
	"testing"

	"slotfare/booking/apikey"
	"slotfare/booking/internal/apikeytest"
)

func TestMemoryContract(t *testing.T) {
	apikeytest.Run(t, func(t *testing.T) apikey.Port { return apikey.NewMemory() })
}
