package service

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/catalog"
	"slotfare/booking/config"
	"slotfare/pricing"
)

// API keys created over the API (POST /v1/keys), beside the configuration
// file's. Like the file, the service keeps only a key's sha256 (HashKey):
// the secret is shown once, in the answer that creates it, and can never be
// read back. The records are on the Keys port, where every replica reads
// them, so the keys outlive a restart; a revoked key's record stays,
// marked, so that a restart never brings it back. The file's keys cannot be revoked here: the file is the operator's,
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

// fileKeys are the principals of the configuration file's keys, by hash.
func fileKeys(keys []config.KeyConfig) map[string]booking.Principal {
	m := make(map[string]booking.Principal, len(keys))
	for _, k := range keys {
		m[k.KeySHA256] = booking.Principal{AccountID: k.AccountID, Role: k.Role, VO: string(k.VO)}
	}
	return m
}

// Authenticate maps a plaintext API key to its principal; the service keeps
// only the keys' sha256 hashes. A key made over the API is read from the
// Keys port on every use (one read of one hash field on Redis), so that a
// key revoked on any replica is refused here from the moment its DELETE
// returned: a copy kept here would outlive it.
func (s *Service) Authenticate(ctx context.Context, apiKey string) (booking.Principal, error) {
	const op slotfare.Op = "service.Authenticate"
	if apiKey == "" {
		return booking.Principal{}, slotfare.E(op, slotfare.Unauthorized, "unknown API key")
	}
	hash := booking.HashKey(apiKey)
	if p, ok := s.fileKeys[hash]; ok {
		return p, nil
	}
	k, ok, err := s.ports.Keys.Live(ctx, hash)
	if err != nil {
		return booking.Principal{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	if !ok {
		return booking.Principal{}, slotfare.E(op, slotfare.Unauthorized, "unknown API key")
	}
	return booking.Principal{AccountID: k.AccountID, Role: k.Role, VO: k.VO}, nil
}

// CreateKey makes a new API key (provider only) and stores its hash; the
// answer carries the secret, which nothing can show again. An account
// that has a key already (the file's or another) keeps one role and VO:
// a second key of it is for rotation (create, switch, revoke the old),
// not another identity. The Keys port claims the account's role and VO in
// the step that stores the key, so that two replicas making keys of one
// account at once cannot give it two.
func (s *Service) CreateKey(ctx context.Context, p booking.Principal, req KeyRequest) (NewKey, error) {
	const op slotfare.Op = "service.CreateKey"
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
	if err := s.fileKeysAdmit(op, k); err != nil {
		return NewKey{}, err
	}
	rec := booking.KeyRecord{Name: k.Name, KeySHA256: k.KeySHA256, Role: k.Role, AccountID: k.AccountID, VO: string(k.VO), CreatedAt: stamp(s.now())}
	if err := s.ports.Keys.Create(ctx, rec); err != nil {
		return NewKey{}, slotfare.E(op, err)
	}
	return NewKey{KeyInfo: keyInfo(rec), Key: plain}, nil
}

// fileKeysAdmit refuses a key that takes the name of one of the
// configuration file's, or whose account has keys there of another role
// or VO: the file's keys are every replica's alike, and never change
// while it runs.
func (s *Service) fileKeysAdmit(op slotfare.Op, k config.KeyConfig) error {
	for _, fk := range s.cfg.Keys {
		if fk.Name == k.Name {
			return slotfare.E(op, slotfare.Conflict, slotfare.Field("name"), fmt.Sprintf("%q is the name of a key of the configuration file", k.Name))
		}
		if fk.AccountID != k.AccountID {
			continue
		}
		field := ""
		switch {
		case fk.Role != k.Role:
			field = "role"
		case fk.VO != k.VO:
			field = "vo"
		default:
			continue
		}
		return slotfare.E(op, slotfare.Conflict, slotfare.Field(field),
			fmt.Sprintf("account %q has keys of role %s and VO %q: another key of it must have the same role and VO", k.AccountID, fk.Role, fk.VO))
	}
	return nil
}

// Keys lists every live key (provider only), the file's first, then the
// API's, each by name: names, roles, accounts and VOs, never a secret.
func (s *Service) Keys(ctx context.Context, p booking.Principal) ([]KeyInfo, error) {
	const op slotfare.Op = "service.Keys"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return nil, err
	}
	made, err := s.ports.Keys.All(ctx)
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	out := make([]KeyInfo, 0, len(s.cfg.Keys)+len(made))
	for _, k := range s.cfg.Keys {
		out = append(out, KeyInfo{Name: k.Name, Role: k.Role, AccountID: k.AccountID, VO: k.VO, Source: "file"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for _, k := range made {
		out = append(out, keyInfo(k))
	}
	return out, nil
}

// RevokeKey revokes a key created over the API (provider only): from the
// moment it returns, the key authenticates nothing, on any replica and
// after a restart. A key of the configuration file is a Conflict (remove
// it from the file); an unknown name is NotFound.
func (s *Service) RevokeKey(ctx context.Context, p booking.Principal, name string) error {
	const op slotfare.Op = "service.RevokeKey"
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return err
	}
	if err := s.checkOpen(op); err != nil {
		return err
	}
	for _, fk := range s.cfg.Keys {
		if fk.Name == name {
			return slotfare.E(op, slotfare.Conflict, fmt.Sprintf("key %q is the configuration file's: it is revoked by removing it from the file", name))
		}
	}
	if _, err := s.ports.Keys.Revoke(ctx, name, stamp(s.now()), s.writeID()); err != nil {
		return slotfare.E(op, err)
	}
	return nil
}

// adoptOldKeys gives the Keys port the keys an older slotfare kept on
// shared ports: as catalog documents, and before that in each replica's
// own store (the catalog's first, as the newer). The port keeps what it
// has of a name, so adopting again on every start changes nothing.
func (s *Service) adoptOldKeys(ctx context.Context, docs []catalog.Doc, stored []booking.KeyRecord) error {
	var old []booking.KeyRecord
	for _, d := range docs {
		name, ok := strings.CutPrefix(d.ID, keyDocPrefix)
		if !ok {
			continue
		}
		var k booking.KeyRecord
		if err := json.Unmarshal(d.Body, &k); err != nil {
			return slotfare.E(slotfare.Op("service.keys"), slotfare.Other, fmt.Sprintf("stored key %s", name), err)
		}
		old = append(old, k)
	}
	old = append(old, stored...)
	if len(old) == 0 {
		return nil
	}
	return s.ports.Keys.Adopt(ctx, old)
}

// keyInfo is an API-made key as GET /v1/keys lists it.
func keyInfo(k booking.KeyRecord) KeyInfo {
	at := k.CreatedAt
	return KeyInfo{Name: k.Name, Role: k.Role, AccountID: k.AccountID, VO: pricing.VO(k.VO), Source: "api", CreatedAt: &at}
}

// FirstProviderKey makes a provider key named name for account when no
// live provider key exists (the file's or the API's), so that a service
// started with none can be configured over the API; made is false when one
// existed, or another replica made it first, and nothing was made.
func (s *Service) FirstProviderKey(ctx context.Context, name, account string) (k NewKey, made bool, err error) {
	const op slotfare.Op = "service.FirstProviderKey"
	for _, fk := range s.cfg.Keys {
		if fk.Role == booking.RoleProvider {
			return NewKey{}, false, nil
		}
	}
	live, err := s.ports.Keys.All(ctx)
	if err != nil {
		return NewKey{}, false, slotfare.E(op, err)
	}
	for _, lk := range live {
		if lk.Role == booking.RoleProvider {
			return NewKey{}, false, nil
		}
	}
	k, err = s.CreateKey(ctx, booking.Principal{AccountID: account, Role: booking.RoleProvider},
		KeyRequest{Name: name, Role: booking.RoleProvider, AccountID: account})
	if slotfare.KindOf(err) == slotfare.Conflict {
		return NewKey{}, false, nil
	}
	if err != nil {
		return NewKey{}, false, slotfare.E(op, err)
	}
	return k, true, nil
}
