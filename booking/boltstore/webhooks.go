package boltstore

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"slotfare"
	"slotfare/booking/webhooks"
)

// Webhooks is booking/webhooks' Port in WebhooksFileName under a data
// directory, beside the store: one bucket of hook id -> JSON, each write
// one transaction.
type Webhooks struct{ db *bolt.DB }

var _ webhooks.Port = (*Webhooks)(nil)

// WebhooksFileName is the file OpenWebhooks keeps the hooks in.
const WebhooksFileName = "webhooks.db"

var webhooksBucket = []byte("webhooks")

// OpenWebhooks opens (creating if needed) the hooks of data directory dir.
func OpenWebhooks(dir string) (*Webhooks, error) {
	db, err := bolt.Open(filepath.Join(dir, WebhooksFileName), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, slotfare.E(slotfare.Op("boltstore.OpenWebhooks"), slotfare.Unavailable, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists(webhooksBucket); return err }); err != nil {
		db.Close()
		return nil, slotfare.E(slotfare.Op("boltstore.OpenWebhooks"), slotfare.Unavailable, err)
	}
	return &Webhooks{db: db}, nil
}

func (b *Webhooks) Create(ctx context.Context, h webhooks.Hook) error {
	v, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return b.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(webhooksBucket).Put([]byte(h.ID), v) })
}

func (b *Webhooks) Save(ctx context.Context, h webhooks.Hook) (bool, error) {
	v, err := json.Marshal(h)
	if err != nil {
		return false, err
	}
	ok := false
	err = b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(webhooksBucket)
		if bk.Get([]byte(h.ID)) == nil {
			return nil
		}
		ok = true
		return bk.Put([]byte(h.ID), v)
	})
	return ok, err
}

func (b *Webhooks) List(ctx context.Context) ([]webhooks.Hook, error) {
	var out []webhooks.Hook
	err := b.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(webhooksBucket).ForEach(func(k, v []byte) error {
			var h webhooks.Hook
			if err := json.Unmarshal(v, &h); err != nil {
				return slotfare.E(slotfare.Op("boltstore.Webhooks.List"), slotfare.Other, "hook "+string(k)+" does not decode: "+err.Error())
			}
			out = append(out, h)
			return nil
		})
	})
	return out, err
}

func (b *Webhooks) Delete(ctx context.Context, id string) (bool, error) {
	found := false
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(webhooksBucket)
		found = bk.Get([]byte(id)) != nil
		return bk.Delete([]byte(id))
	})
	return found, err
}

func (b *Webhooks) Close() error { return b.db.Close() }
