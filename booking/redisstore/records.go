package redisstore

import (
	"context"
	_ "embed"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/lease"
	"slotfare/booking/records"
	"slotfare/ledger"
)

//go:embed apply.lua
var applyLua string

//go:embed running.lua
var runningLua string

var runningFunc = library.fn("running")

// applyLuaStep applies a write in its resource's hash slot (apply.lua): the
// library's apply function.
const applyLuaStep = `
local r, lks = applyCheck(0, 0)
if r then return r end
applyDo(0, 0, WRITE_TTL, lks)
return {'OK'}
`

// applyFencedStep is applyLuaStep for a lease holder's write: KEYS[1] is
// the resource's meta hash, where the inventory keeps its fences too (one
// newest token per lease for the resource's slot), ARGV[1] and ARGV[2] the
// lease's name and token, then the write's keys and arguments. A retry of
// an applied write answers DONE; an older token than the newest seen
// answers FENCED with it and writes nothing; a write applied keeps its
// token as the newest.
const applyFencedStep = `
local r, lks = applyCheck(1, 2)
if r and r[1] == 'DONE' then return r end
local field = 'fence:' .. ARGV[1]
local seen = redis.call('HGET', KEYS[1], field)
if seen and ARGV[2] + 0 < seen + 0 then return {'FENCED', seen} end
if r then return r end
if not seen or ARGV[2] + 0 > seen + 0 then redis.call('HSET', KEYS[1], field, ARGV[2]) end
applyDo(1, 2, WRITE_TTL, lks)
return {'OK'}
`

// writeMarkerTTL is how long, in seconds, Redis keeps the marker key of a
// write of postings alone (24 hours): a retry of the write within it
// answers nil; a later one is checked again and answers a Conflict, as its
// postings are stored already. go-redis retries within seconds, and a
// replica's own retries within a request's life, so a day is long past any
// retry and bounds those markers to a day of writes. A write that changes
// bookings keeps its marker in its first booking's record (apply.lua), for
// as long as the record.
const writeMarkerTTL = "86400"

// bookingScript reads a booking's record and its postings in one step of
// its resource's slot, so they are of one moment.
//
//	KEYS: record hash, the booking's posting log
var bookingScript = redis.NewScript(`
local v = redis.call('HMGET', KEYS[1], 'v', 'r')
if not v[1] or not v[2] then return {} end
local out = {v[1], v[2]}
for _, p in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do out[#out + 1] = p end
return out
`)

//go:embed account.lua
var accountLua string

// accountScript indexes an applied write under one account (account.lua).
var accountScript = redis.NewScript(accountLua + "\nreturn accountIndex(0, 0)\n")

// accountAfterScript indexes a write under one account only if the write
// was applied: its marker is stored (apply.lua: a field of the first
// booking's record hash, or a key for a write of postings alone; either in
// the resource's slot). On one server, where a script may read keys of any
// slot, the write's step indexes its first account itself (applyIndex);
// this script indexes any other account of the write, in the same
// pipeline, so that a refused write indexes nothing.
//
//	KEYS: where the marker is, then accountIndex's
//	ARGV: the marker's field ('' for the marker key), then accountIndex's
var accountAfterScript = redis.NewScript(accountLua + `
if ARGV[1] == '' then
  if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
elseif redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0
end
return accountIndex(1, 1)
`)

// recordsScript reads record hashes of one resource's slot in one step:
// the version and record of each, in KEYS order, false for one not stored.
//
//	KEYS: record hashes
var recordsScript = redis.NewScript(`
local out = {}
for i = 1, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 'v', 'r')
  if v[1] and v[2] then out[#out + 1] = v[1]; out[#out + 1] = v[2]
  else out[#out + 1] = false; out[#out + 1] = false end
end
return out
`)

// Records is records.Port on Redis. A booking's record and its postings are
// written in its resource's slot ("sf:{<resource>}:..."), in one script,
// which also keeps the resource's history of bookings ("sf:{<resource>}:hist").
// Then, before Apply returns, the write is indexed where it is read from:
// the booking's resource under its id's tag ("sf:{bk:<id>}:res"), the
// account's bookings and postings under the account's tag
// ("sf:{acct:<account>}:..."). Indexing is idempotent, and the same write
// sent again (same WriteID) indexes again, so a replica that died between
// the two steps leaves nothing a retry does not finish.
type Records struct {
	rdb    redis.UniversalClient
	prefix string
	keep   atomic.Int64 // bookings a change log keeps (records.ChangesKept when 0)
	// keepEvents is how many events a resource's stream keeps
	// (events.DefaultKeep when 0).
	keepEvents atomic.Int64
	invState
}

var _ records.Guarded = (*Records)(nil)

// NewRecords returns the record store on rdb under prefix ("sf" when empty).
func NewRecords(rdb redis.UniversalClient, prefix string) *Records {
	if prefix == "" {
		prefix = "sf"
	}
	return &Records{rdb: rdb, prefix: prefix}
}

func (s *Records) res(r string) string  { return slotBase(s.prefix, r) }
func (s *Records) acct(a string) string { return s.prefix + ":{acct:" + a + "}:" }

// recKey is booking id's record hash on resource res.
func (s *Records) recKey(res, id string) string { return s.res(res) + "bk:" + id }
func (s *Records) bkRes(id string) string {
	return s.prefix + ":{bk:" + id + "}:res"
}

// Apply implements records.Port.
func (s *Records) Apply(ctx context.Context, w records.Write) error {
	const op slotfare.Op = "redisstore.Records.Apply"
	if err := records.Check(w); err != nil {
		return err
	}
	keys, args, encoded, err := s.writeArgs(op, w)
	if err != nil {
		return err
	}
	fn := applyFunc
	if w.Fence != (lease.Fence{}) {
		fn = applyFencedFunc
		keys = append([]string{s.res(w.Resource) + "meta"}, keys...)
		args = append([]any{w.Fence.Name, w.Fence.Token}, args...)
	}
	// Indexed where the write is read from; a retry of the same write is
	// indexed again.
	out, err := s.applyThenIndex(ctx, op, w, encoded, false, fn, keys, args)
	if err != nil {
		return err
	}
	return writeAnswer(op, w, out)
}

// writeAnswer is apply.lua's answer as an error: nil for OK and DONE, the
// Conflict of a booking moved or a posting stored.
func writeAnswer(op slotfare.Op, w records.Write, out []string) error {
	switch {
	case len(out) == 3 && out[0] == "MOVED":
		have, _ := strconv.ParseInt(out[2], 10, 64)
		var want int64
		for _, c := range w.Changes {
			if c.Record.Booking.ID == out[1] {
				want = c.Replaces
			}
		}
		return records.ErrMoved(out[1], want, have)
	case len(out) == 2 && out[0] == "POSTED":
		return records.ErrPosted(out[1])
	case len(out) == 2 && out[0] == "FENCED":
		newest, _ := strconv.ParseInt(out[1], 10, 64)
		return lease.ErrFenced(op, w.Resource, w.Fence, newest)
	case len(out) != 1 || (out[0] != "OK" && out[0] != "DONE"):
		return unexpected(op, out)
	}
	return nil
}

// writeArgs are a write's keys and arguments for apply.lua, and its
// postings encoded (in order), which its index stores too.
func (s *Records) writeArgs(op slotfare.Op, w records.Write) ([]string, []any, [][]byte, error) {
	base := s.res(w.Resource)
	evs, err := s.eventArgs(w)
	if err != nil {
		return nil, nil, nil, slotfare.E(op, slotfare.Other, err)
	}
	keys := []string{base + "w:" + w.WriteID, base + "live", base + "posted", base + "log", base + "hist", base + "due", base + "chg", base + "chgs", base + "ev", base + "run", base + "runn"}
	args := []any{len(w.Changes), len(w.Postings), s.changesKept(), s.eventsKept()}
	for i, c := range w.Changes {
		rec, err := c.Record.AppendJSON(booking.NewRecordBuffer())
		if err != nil {
			return nil, nil, nil, slotfare.E(op, slotfare.Other, err)
		}
		holding := "0"
		if c.Record.Booking.Status.Holding() {
			holding = "1"
		}
		due := ""
		if at, ok := records.DueAt(c.Record); ok {
			due = strconv.FormatInt(at.Unix(), 10)
		}
		keys = append(keys, s.recKey(w.Resource, c.Record.Booking.ID))
		args = append(args, c.Record.Booking.ID, c.Replaces, holding, rec, records.ListKey(c.Record), due, string(c.Record.Booking.Status), c.Replaces+1, evs[i], c.Record.Booking.Nodes)
	}
	evs = evs[len(w.Changes):]
	encoded := make([][]byte, 0, len(w.Postings))
	bookLog := map[string]int{} // booking id -> its log's KEYS index (1-based)
	for i, p := range w.Postings {
		b, err := ledger.EncodePosting(p)
		if err != nil {
			return nil, nil, nil, slotfare.E(op, err)
		}
		k := 0
		if p.BookingID != "" {
			if k = bookLog[p.BookingID]; k == 0 {
				keys = append(keys, base+"bp:"+p.BookingID)
				k = len(keys)
				bookLog[p.BookingID] = k
			}
		}
		args = append(args, p.ID, b, k, evs[2*i], evs[2*i+1])
		encoded = append(encoded, b)
	}
	return keys, args, encoded, nil
}

// eventArgs are w's events (records.EncodedEventsOf): one per change,
// then two per posting.
func (s *Records) eventArgs(w records.Write) ([]string, error) {
	evs, err := records.EncodedEventsOf(w)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = string(e)
	}
	return out, nil
}

// Get implements records.Port.
func (s *Records) Get(ctx context.Context, id string) (records.Stored, bool, error) {
	const op slotfare.Op = "redisstore.Records.Get"
	res, err := s.rdb.Get(ctx, s.bkRes(id)).Result()
	if err == redis.Nil {
		return records.Stored{}, false, nil
	}
	if err != nil {
		return records.Stored{}, false, unavailable(op, err)
	}
	return s.read(ctx, op, res, id)
}

// Booking implements records.Port: the booking's resource (as Get), then
// its record and postings in one script of the resource's slot.
func (s *Records) Booking(ctx context.Context, id string) (records.Stored, []ledger.Posting, bool, error) {
	const op slotfare.Op = "redisstore.Records.Booking"
	res, err := s.rdb.Get(ctx, s.bkRes(id)).Result()
	if err == redis.Nil {
		return records.Stored{}, nil, false, nil
	}
	if err != nil {
		return records.Stored{}, nil, false, unavailable(op, err)
	}
	base := s.res(res)
	out, err := bookingScript.Run(ctx, s.rdb, []string{s.recKey(res, id), base + "bp:" + id}).StringSlice()
	if err != nil {
		return records.Stored{}, nil, false, unavailable(op, err)
	}
	if len(out) == 0 {
		return records.Stored{}, nil, false, nil
	}
	st, err := decodeStored(op, id, out[0], out[1])
	if err != nil {
		return records.Stored{}, nil, false, err
	}
	ps := make([]ledger.Posting, 0, len(out)-2)
	for _, x := range out[2:] {
		p, err := ledger.DecodePosting([]byte(x))
		if err != nil {
			return records.Stored{}, nil, false, slotfare.E(op, slotfare.Other, "a posting of booking "+id+" does not decode", err)
		}
		ps = append(ps, p)
	}
	return st, ps, true, nil
}

func (s *Records) read(ctx context.Context, op slotfare.Op, res, id string) (records.Stored, bool, error) {
	vals, err := s.rdb.HMGet(ctx, s.recKey(res, id), "v", "r").Result()
	if err != nil {
		return records.Stored{}, false, unavailable(op, err)
	}
	if vals[0] == nil || vals[1] == nil {
		return records.Stored{}, false, nil
	}
	v, ok1 := vals[0].(string)
	r, ok2 := vals[1].(string)
	if !ok1 || !ok2 {
		return records.Stored{}, false, unexpected(op, vals)
	}
	st, err := decodeStored(op, id, v, r)
	if err != nil {
		return records.Stored{}, false, err
	}
	return st, true, nil
}

// decodeStored is a record hash's version and record as a Stored.
func decodeStored(op slotfare.Op, id, version, record string) (records.Stored, error) {
	v, err := strconv.ParseInt(version, 10, 64)
	if err != nil {
		return records.Stored{}, unexpected(op, version)
	}
	var r booking.Record
	if err := json.Unmarshal([]byte(record), &r); err != nil {
		return records.Stored{}, slotfare.E(op, slotfare.Other, "booking "+id+" does not decode", err)
	}
	return records.Stored{Record: r, Version: v}, nil
}

// OfAccount implements records.Port.
func (s *Records) OfAccount(ctx context.Context, account, after string, limit int) ([]records.Stored, string, error) {
	const op slotfare.Op = "redisstore.Records.OfAccount"
	ids, next, err := s.keysetPage(ctx, op, s.acct(account)+"bk", after, limit)
	if err != nil || len(ids) == 0 {
		return nil, next, err
	}
	// Where each booking lives, in one pipelined round trip, then each
	// record in another (a cluster client splits both by slot).
	where := make([]*redis.StringCmd, len(ids))
	// A booking not found (redis.Nil) is told apart below, per booking.
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			where[i] = p.Get(ctx, s.bkRes(id))
		}
		return nil
	}); err != nil && err != redis.Nil {
		return nil, "", unavailable(op, err)
	}
	recs := make([]*redis.SliceCmd, len(ids))
	var decided error // what the pipeline's function found, before any command ran
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			res, err := where[i].Result()
			switch {
			case err == redis.Nil:
				decided = slotfare.E(op, slotfare.Other, "account "+account+" lists booking "+id+", which is not stored")
			case err != nil:
				decided = unavailable(op, err)
			}
			if decided != nil {
				return decided
			}
			recs[i] = p.HMGet(ctx, s.recKey(res, id), "v", "r")
		}
		return nil
	}); err != nil {
		if decided != nil {
			return nil, "", decided
		}
		return nil, "", unavailable(op, err)
	}
	out := make([]records.Stored, 0, len(ids))
	for i, id := range ids {
		vals := recs[i].Val()
		if len(vals) != 2 || vals[0] == nil || vals[1] == nil {
			return nil, "", slotfare.E(op, slotfare.Other, "account "+account+" lists booking "+id+", which is not stored")
		}
		v, ok1 := vals[0].(string)
		r, ok2 := vals[1].(string)
		if !ok1 || !ok2 {
			return nil, "", unexpected(op, vals)
		}
		st, err := decodeStored(op, id, v, r)
		if err != nil {
			return nil, "", err
		}
		out = append(out, st)
	}
	return out, next, nil
}

// keysetPage is a page of booking ids from a sorted set of
// records.ListKey (an account's bookings, a resource's history): those
// after after, at most limit, and the key to continue from ("" on the last
// page).
func (s *Records) keysetPage(ctx context.Context, op slotfare.Op, key, after string, limit int) (ids []string, next string, err error) {
	if limit < 1 {
		return nil, "", slotfare.Errorf(op, "limit", "must be positive, got %d", limit)
	}
	from := "-"
	if after != "" {
		from = "(" + after
	}
	keys, err := s.rdb.ZRangeByLex(ctx, key, &redis.ZRangeBy{Min: from, Max: "+", Count: int64(limit + 1)}).Result()
	if err != nil {
		return nil, "", unavailable(op, err)
	}
	if len(keys) > limit {
		keys = keys[:limit]
		next = keys[limit-1]
	}
	ids = make([]string, len(keys))
	for i, k := range keys {
		_, id, ok := strings.Cut(k, "|")
		if !ok {
			return nil, "", unexpected(op, k)
		}
		ids[i] = id
	}
	return ids, next, nil
}

// History implements records.Port: a page of the resource's history
// (sf:{R}:hist) by key, then the page's records in one script of the
// resource's slot.
func (s *Records) History(ctx context.Context, resource, after string, limit int) ([]records.Stored, string, error) {
	const op slotfare.Op = "redisstore.Records.History"
	base := s.res(resource)
	ids, next, err := s.keysetPage(ctx, op, base+"hist", after, limit)
	if err != nil || len(ids) == 0 {
		return nil, next, err
	}
	hashes := make([]string, len(ids))
	for i, id := range ids {
		hashes[i] = base + "bk:" + id
	}
	vals, err := recordsScript.Run(ctx, s.rdb, hashes).Slice()
	if err != nil {
		return nil, "", unavailable(op, err)
	}
	if len(vals) != 2*len(ids) {
		return nil, "", unexpected(op, vals)
	}
	out := make([]records.Stored, 0, len(ids))
	for i, id := range ids {
		v, ok1 := vals[2*i].(string)
		r, ok2 := vals[2*i+1].(string)
		if !ok1 || !ok2 {
			return nil, "", slotfare.E(op, slotfare.Other, "resource "+resource+" lists booking "+id+", which is not stored")
		}
		st, err := decodeStored(op, id, v, r)
		if err != nil {
			return nil, "", err
		}
		out = append(out, st)
	}
	return out, next, nil
}

// Live implements records.Port: the live set, then its records by
// recordsScript in the resource's slot, liveChunk at a time (the ticker
// reads it every second: one round trip per chunk, not per booking).
func (s *Records) Live(ctx context.Context, resource string) ([]*records.Stored, error) {
	const op slotfare.Op = "redisstore.Records.Live"
	ids, err := s.rdb.SMembers(ctx, s.res(resource)+"live").Result()
	if err != nil {
		return nil, unavailable(op, err)
	}
	return s.readLive(ctx, op, resource, ids)
}

// Due implements records.Port: the due set up to until, then the
// records as Live reads them.
func (s *Records) Due(ctx context.Context, resource string, until time.Time) ([]*records.Stored, error) {
	const op slotfare.Op = "redisstore.Records.Due"
	ids, err := s.rdb.ZRangeByScore(ctx, s.res(resource)+"due", &redis.ZRangeBy{Min: "-inf", Max: strconv.FormatInt(until.Unix(), 10)}).Result()
	if err != nil {
		return nil, unavailable(op, err)
	}
	return s.readLive(ctx, op, resource, ids)
}

// Running implements records.Port: running.lua, in the resource's slot.
func (s *Records) Running(ctx context.Context, resource string, at time.Time) (int, error) {
	const op slotfare.Op = "redisstore.Records.Running"
	base := s.res(resource)
	keys := []string{base + "run", base + "runn", base + "live", base + "due", base + "runmade"}
	n, err := runningFunc.Run(ctx, s.rdb, keys, at.Unix(), base+"bk:").Int()
	if err != nil {
		return 0, unavailable(op, err)
	}
	return n, nil
}

// readLive reads the records of ids on resource in id order, liveChunk per
// script, leaving out any that is gone or no longer holds capacity (left
// the set since it was read).
func (s *Records) readLive(ctx context.Context, op slotfare.Op, resource string, ids []string) ([]*records.Stored, error) {
	base := s.res(resource)
	sort.Strings(ids)
	out := make([]*records.Stored, 0, len(ids))
	for from := 0; from < len(ids); from += liveChunk {
		chunk := ids[from:min(from+liveChunk, len(ids))]
		hashes := make([]string, len(chunk))
		for i, id := range chunk {
			hashes[i] = base + "bk:" + id
		}
		vals, err := recordsScript.Run(ctx, s.rdb, hashes).Slice()
		if err != nil {
			return nil, unavailable(op, err)
		}
		if len(vals) != 2*len(chunk) {
			return nil, unexpected(op, vals)
		}
		for i, id := range chunk {
			v, ok1 := vals[2*i].(string)
			r, ok2 := vals[2*i+1].(string)
			if !ok1 || !ok2 {
				continue // left the live set's record meanwhile: gone
			}
			st, err := decodeStored(op, id, v, r)
			if err != nil {
				return nil, err
			}
			if !st.Record.Booking.Status.Holding() {
				continue
			}
			out = append(out, &st)
		}
	}
	return out, nil
}

// liveChunk is how many records one read of the live set fetches: enough
// to make round trips few, few enough that one script does not hold Redis
// for long.
const liveChunk = 256

// Postings implements records.Port.
func (s *Records) Postings(ctx context.Context, account string) ([]ledger.Posting, error) {
	return s.postingList(ctx, "redisstore.Records.Postings", s.acct(account)+"postings")
}

// ResourcePostings implements records.Port: the resource's posting log,
// written by the library's apply function in the resource's slot.
func (s *Records) ResourcePostings(ctx context.Context, resource string) ([]ledger.Posting, error) {
	return s.postingList(ctx, "redisstore.Records.ResourcePostings", s.res(resource)+"log")
}

// postingList decodes a stored list of postings.
func (s *Records) postingList(ctx context.Context, op slotfare.Op, key string) ([]ledger.Posting, error) {
	raw, err := s.rdb.LRange(ctx, key, 0, -1).Result()
	if err != nil {
		return nil, unavailable(op, err)
	}
	out := make([]ledger.Posting, 0, len(raw))
	for _, x := range raw {
		p, err := ledger.DecodePosting([]byte(x))
		if err != nil {
			return nil, slotfare.E(op, slotfare.Other, "a stored posting does not decode", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Refused implements records.Port: a sorted set per resource, in its slot,
// scored by when each refusal was seen, so that storing one again (a retry)
// adds nothing.
func (s *Records) Refused(ctx context.Context, resource string, rs []booking.RefusalRecord, noWait bool) (int64, error) {
	const op slotfare.Op = "redisstore.Records.Refused"
	if err := records.CheckRefusals(resource, rs); err != nil {
		return 0, err
	}
	if len(rs) == 0 {
		return s.Observed(ctx, resource)
	}
	zs := make([]redis.Z, len(rs))
	for i, f := range rs {
		b, err := json.Marshal(f)
		if err != nil {
			return 0, slotfare.E(op, slotfare.Other, err)
		}
		zs[i] = redis.Z{Score: float64(f.At.Unix()), Member: string(b)}
	}
	// One transaction in the resource's slot: the refusals and the
	// version they move. A retry that finds them stored moves it again,
	// which only makes the lease holder read them once more.
	var v *redis.IntCmd
	if _, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZAdd(ctx, s.res(resource)+"refused", zs...)
		v = p.Incr(ctx, s.observedKey(resource))
		return nil
	}); err != nil {
		return 0, unavailable(op, err)
	}
	return v.Val(), nil
}

// Refusals implements records.Port.
func (s *Records) Refusals(ctx context.Context, resource string) ([]booking.RefusalRecord, error) {
	const op slotfare.Op = "redisstore.Records.Refusals"
	raw, err := s.rdb.ZRange(ctx, s.res(resource)+"refused", 0, -1).Result()
	if err != nil {
		return nil, unavailable(op, err)
	}
	out := make([]booking.RefusalRecord, 0, len(raw))
	for _, x := range raw {
		var f booking.RefusalRecord
		if err := json.Unmarshal([]byte(x), &f); err != nil {
			return nil, slotfare.E(op, slotfare.Other, "a stored refusal does not decode", err)
		}
		out = append(out, f)
	}
	return records.SortRefusals(out), nil
}

// changesKept is how many bookings a resource's change log keeps.
func (s *Records) changesKept() int64 {
	if n := s.keep.Load(); n > 0 {
		return n
	}
	return records.ChangesKept
}

// KeepChanges implements records.Changes: the number goes with each write
// (apply.lua), so replicas that differ trim each to their own.
func (s *Records) KeepChanges(n int) { s.keep.Store(int64(n)) }

// ChangeCursor implements records.Changes: the change counter's 'seq'.
func (s *Records) ChangeCursor(ctx context.Context, resource string) (int64, error) {
	const op slotfare.Op = "redisstore.Records.ChangeCursor"
	seq, err := s.rdb.HGet(ctx, s.res(resource)+"chgs", "seq").Int64()
	if err == redis.Nil {
		return 0, nil
	}
	if err != nil {
		return 0, unavailable(op, err)
	}
	return seq, nil
}

// Changes implements records.Changes: the counter and a page of the change
// log in one transaction of the resource's slot, then the page's records
// in one script there (recordsScript).
func (s *Records) Changes(ctx context.Context, resource string, after int64, limit int) (records.ChangePage, error) {
	const op slotfare.Op = "redisstore.Records.Changes"
	if err := records.CheckChanges(resource, after, limit); err != nil {
		return records.ChangePage{}, err
	}
	base := s.res(resource)
	var counter *redis.SliceCmd
	var log *redis.ZSliceCmd
	if _, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		counter = p.HMGet(ctx, base+"chgs", "seq", "floor")
		log = p.ZRangeByScoreWithScores(ctx, base+"chg", &redis.ZRangeBy{Min: "(" + strconv.FormatInt(after, 10), Max: "+inf", Count: int64(limit) + 1})
		return nil
	}); err != nil {
		return records.ChangePage{}, unavailable(op, err)
	}
	var seq, floor int64
	into := []*int64{&seq, &floor}
	for i, v := range counter.Val() {
		if x, ok := v.(string); ok {
			n, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return records.ChangePage{}, unexpected(op, x)
			}
			*into[i] = n
		}
	}
	if after < floor || after > seq {
		return records.ChangePage{Next: after, Lost: true}, nil
	}
	zs := log.Val()
	page := records.ChangePage{Next: after, More: len(zs) > limit}
	zs = zs[:min(len(zs), limit)]
	if len(zs) == 0 {
		return page, nil
	}
	hashes := make([]string, len(zs))
	for i, z := range zs {
		id, _ := z.Member.(string)
		hashes[i] = base + "bk:" + id
	}
	vals, err := recordsScript.Run(ctx, s.rdb, hashes).Slice()
	if err != nil {
		return records.ChangePage{}, unavailable(op, err)
	}
	if len(vals) != 2*len(zs) {
		return records.ChangePage{}, unexpected(op, vals)
	}
	for i, z := range zs {
		id := strings.TrimPrefix(hashes[i], base+"bk:")
		v, ok1 := vals[2*i].(string)
		r, ok2 := vals[2*i+1].(string)
		if !ok1 || !ok2 {
			return records.ChangePage{}, slotfare.E(op, slotfare.Other, "resource "+resource+"'s change log lists booking "+id+", which is not stored")
		}
		st, err := decodeStored(op, id, v, r)
		if err != nil {
			return records.ChangePage{}, err
		}
		page.Bookings = append(page.Bookings, st)
		page.Next = int64(z.Score)
	}
	return page, nil
}
