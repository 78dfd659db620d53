package booking

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// KeyRecord is a key created over the API as the store keeps it: its hash
// and principal (VO "" = none), when it was made and, once revoked, when.
type KeyRecord struct {
	Name      string
	KeySHA256 string
	Role      Role
	AccountID string
	VO        string
	CreatedAt time.Time
	RevokedAt *time.Time
}

// keyRecordJSON is KeyRecord's stored form: a VO of none is null, as
// pricing.VO writes it (the core does not import pricing).
type keyRecordJSON struct {
	Name      string     `json:"name"`
	KeySHA256 string     `json:"key_sha256"`
	Role      Role       `json:"role"`
	AccountID string     `json:"account_id"`
	VO        *string    `json:"vo"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// MarshalJSON writes the stored form.
func (k KeyRecord) MarshalJSON() ([]byte, error) {
	j := keyRecordJSON{k.Name, k.KeySHA256, k.Role, k.AccountID, nil, k.CreatedAt, k.RevokedAt}
	if k.VO != "" {
		j.VO = &k.VO
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the stored form.
func (k *KeyRecord) UnmarshalJSON(data []byte) error {
	var j keyRecordJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*k = KeyRecord{Name: j.Name, KeySHA256: j.KeySHA256, Role: j.Role, AccountID: j.AccountID, CreatedAt: j.CreatedAt, RevokedAt: j.RevokedAt}
	if j.VO != nil {
		k.VO = *j.VO
	}
	return nil
}

// HashKey is the stored form of an API key: the hex sha256 of its plaintext.
// Only hashes are kept in configuration and store.
func HashKey(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}
