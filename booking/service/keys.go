package service

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sort"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/pricing"
)

// API keys created over the API (POST /v1/keys), beside the configuration
// file's. Like the file, the service keeps only a key's sha256 (HashKey):
// the secret is shown once, in the answer that creates it, and can never be
// read back. The records are in the store, so the keys outlive a restart;
// a revoked key's record stays, marked, so that a restart never brings it
// back. The file's keys cannot be revoked here: the file is the operator's,
// and they stay valid while it lists them.

// KeyRequest is the body of POST /v1/keys: a name (unique among the live
// keys, the file's included), the role, the account the key acts for and,
// for users, the VO that decides which VO-restricted fare classes it may
// buy.
type KeyRequest struct {
	Name      string       `json:"name"`
	Role      booking.Role `json:"role"`
	AccountID string       `json:"account_id"`
	VO        pricing.VO   `json:"vo"`
}

// KeyInfo is a key as GET /v1/keys lists it: never its secret or hash.
// Source is "file" (the configuration's; CreatedAt is then nil) or "api".
type KeyInfo struct {
	Name      string       `json:"name"`
	Role      booking.Role `json:"role"`
	AccountID string       `json:"account_id"`
	VO        pricing.VO   `json:"vo"`
	Source    string       `json:"source"`
	CreatedAt *time.Time   `json:"created_at"`
}

// NewKey is the answer to POST /v1/keys: the key's listing and, this once,
// its secret.
type NewKey struct {
	KeyInfo
	Key string `json:"key"`
}

// keySecretBytes is the entropy of a created key: 256 bits.
const keySecretBytes = 32

// keyPrefix starts every created key, so that one found in a log or a
// repository is recognisable as a slotfare key.
const keyPrefix = "sfk_"

// installKeys makes the principals of the file's keys and of the live
// stored ones the set Authenticate reads. The caller holds s.keysMu (or is
// Open).
func (s *Service) installKeys() {
	m := make(keySet, len(s.cfg.Keys)+len(s.apiKeys))
	for _, k := range s.cfg.Keys {
		m[k.KeySHA256] = booking.Principal{AccountID: k.AccountID, Role: k.Role, VO: string(k.VO)}
	}
	for _, k := range s.apiKeys {
		m[k.KeySHA256] = booking.Principal{AccountID: k.AccountID, Role: k.Role, VO: string(k.VO)}
	}
	s.keys.Store(&m)
}

// CreateKey makes a new API key (provider only) and stores its hash; the
// answer carries the secret, which nothing can show again. An account
// that has a key already (the file's or another) keeps one role and VO:
// a second key of it is for rotation (create, switch, revoke the old),
// not another identity.
func (s *Service) CreateKey(ctx context.Context, p booking.Principal, req KeyRequest) (NewKey, error) {
	const op = "booking.CreateKey"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return NewKey{}, err
	}
	if err := s.checkOpen(op); err != nil {
		return NewKey{}, err
	}
	var secret [keySecretBytes]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return NewKey{}, slotfare.E(op, slotfare.Other, err)
	}
	plain := keyPrefix + base64.RawURLEncoding.EncodeToString(secret[:])
	k := config.KeyConfig{KeySHA256: booking.HashKey(plain), Name: req.Name, Role: req.Role, AccountID: req.AccountID, VO: req.VO}
	if err := k.Validate(op, ""); err != nil {
		return NewKey{}, err
	}
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	for _, fk := range s.cfg.Keys {
		if fk.Name == k.Name {
			return NewKey{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("name"), fmt.Sprintf("%q is the name of a key of the configuration file", k.Name))
		}
	}
	if _, dup := s.apiKeys[k.Name]; dup {
		return NewKey{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("name"), fmt.Sprintf("%q is the name of a live key (DELETE /v1/keys/%s first)", k.Name, k.Name))
	}
	if prev, ok := (*s.keys.Load()).principalOf(k.AccountID); ok && (prev.Role != k.Role || prev.VO != string(k.VO)) {
		return NewKey{}, slotfare.E(op, slotfare.Conflict, slotfare.Field("account_id"),
			fmt.Sprintf("account %q has keys of role %s and VO %q: another key of it must have the same role and VO", k.AccountID, prev.Role, prev.VO))
	}
	rec := booking.KeyRecord{Name: k.Name, KeySHA256: k.KeySHA256, Role: k.Role, AccountID: k.AccountID, VO: string(k.VO), CreatedAt: stamp(s.now())}
	if err := s.saveKey(ctx, op, rec); err != nil {
		return NewKey{}, err
	}
	s.apiKeys[rec.Name] = rec
	s.installKeys()
	return NewKey{KeyInfo: keyInfo(rec), Key: plain}, nil
}

// Keys lists every live key (provider only), the file's first, then the
// API's, each by name: names, roles, accounts and VOs, never a secret.
func (s *Service) Keys(ctx context.Context, p booking.Principal) ([]KeyInfo, error) {
	const op = "booking.Keys"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return nil, err
	}
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	out := make([]KeyInfo, 0, len(s.cfg.Keys)+len(s.apiKeys))
	for _, k := range s.cfg.Keys {
		out = append(out, KeyInfo{Name: k.Name, Role: k.Role, AccountID: k.AccountID, VO: k.VO, Source: "file"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	n := len(out)
	for _, k := range s.apiKeys {
		out = append(out, keyInfo(k))
	}
	api := out[n:]
	sort.Slice(api, func(i, j int) bool { return api[i].Name < api[j].Name })
	return out, nil
}

// RevokeKey revokes a key created over the API (provider only): from the
// moment it returns, the key authenticates nothing, here and after a
// restart. A key of the configuration file is a Conflict (remove it from
// the file); an unknown name is NotFound.
func (s *Service) RevokeKey(ctx context.Context, p booking.Principal, name string) error {
	const op = "booking.RevokeKey"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return err
	}
	if err := s.checkOpen(op); err != nil {
		return err
	}
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	for _, fk := range s.cfg.Keys {
		if fk.Name == name {
			return slotfare.E(op, slotfare.Conflict, fmt.Sprintf("key %q is the configuration file's: it is revoked by removing it from the file", name))
		}
	}
	rec, ok := s.apiKeys[name]
	if !ok {
		return slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no key %q", name))
	}
	at := stamp(s.now())
	rec.RevokedAt = &at
	if err := s.saveKey(ctx, op, rec); err != nil {
		return err
	}
	delete(s.apiKeys, name)
	s.installKeys()
	return nil
}

// keyInfo is an API-made key as GET /v1/keys lists it.
func keyInfo(k booking.KeyRecord) KeyInfo {
	at := k.CreatedAt
	return KeyInfo{Name: k.Name, Role: k.Role, AccountID: k.AccountID, VO: pricing.VO(k.VO), Source: "api", CreatedAt: &at}
}

// keySet is the principals by key hash that Authenticate reads.
type keySet map[string]booking.Principal

// principalOf is some key's principal of the account, if it has a key.
func (m keySet) principalOf(account string) (booking.Principal, bool) {
	for _, p := range m {
		if p.AccountID == account {
			return p, true
		}
	}
	return booking.Principal{}, false
}
