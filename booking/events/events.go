// Package events is the event log's vocabulary: what happened to bookings,
// postings, invoices, booking control's limits and webhooks, as CloudEvents
// 1.0 in their JSON form, and the cursor a reader pages the log with.
//
// A store writes a booking's events in the same atomic step as the change
// they record (records.EventsOf makes them from the write), so there is no
// event without its change and no change without its event. The log is one
// sequence on the embedded store and one stream per resource on Redis (a
// stream lives in its resource's hash slot, beside the records the write
// changes); a cursor holds a position per stream, so a reader merging the
// streams never skips an event of one because another's clock ran ahead.
package events

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"slotfare"
	"slotfare/booking"
)

// Event is one CloudEvents 1.0 event (JSON format). ID is unique and the
// same whenever the event is made again from the same change (a retried
// write), so a consumer recognises a duplicate by it.
type Event struct {
	SpecVersion     string          `json:"specversion"`
	ID              string          `json:"id"`
	Source          string          `json:"source"`
	Type            string          `json:"type"`
	Time            time.Time       `json:"time"`
	Subject         string          `json:"subject"`
	DataContentType string          `json:"datacontenttype"`
	Data            json.RawMessage `json:"data"`
}

// The event types besides booking.<status> (BookingType).
const (
	BookingModified = "booking.modified" // a change that kept the status: new terms, an extension
	PostingCreated  = "posting.created"
	InvoiceUpdated  = "invoice.updated"
	LimitsPublished = "limits.published"
	WebhookDisabled = "webhook.disabled"
)

// Source is every event's source attribute.
const Source = "/slotfare"

// New is an event of type typ about subject, data encoded as JSON.
func New(id, typ, subject string, at time.Time, data any) (Event, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return Event{}, err
	}
	return Event{SpecVersion: "1.0", ID: id, Source: Source, Type: typ, Time: at.UTC(), Subject: subject,
		DataContentType: "application/json", Data: b}, nil
}

// NewEncoded is an event whose data is already JSON as json.Marshal writes
// it (compact, HTML characters escaped), such as the booking's and the
// posting's own encodings: New would compact it once more.
func NewEncoded(id, typ, subject string, at time.Time, data json.RawMessage) Event {
	return Event{SpecVersion: "1.0", ID: id, Source: Source, Type: typ, Time: at.UTC(), Subject: subject,
		DataContentType: "application/json", Data: data}
}

// AppendJSON appends the bytes json.Marshal writes for e, by hand: every
// booking write stores its events, and json.Marshal would scan and compact
// the data once more. e.Data must be as json.Marshal writes it, as New and
// NewEncoded make it.
func (e Event) AppendJSON(b []byte) ([]byte, error) {
	b, err := e.AppendHead(b)
	if err != nil {
		return nil, err
	}
	if e.Data == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, e.Data...)
	}
	return append(b, '}'), nil
}

// AppendHead appends what AppendJSON writes before e's data, for a caller
// that appends the data itself and then the closing '}'.
func (e Event) AppendHead(b []byte) ([]byte, error) {
	t, err := e.Time.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b = append(b, `{"specversion":`...)
	b = booking.AppendJSONString(b, e.SpecVersion)
	b = append(b, `,"id":`...)
	b = booking.AppendJSONString(b, e.ID)
	b = append(b, `,"source":`...)
	b = booking.AppendJSONString(b, e.Source)
	b = append(b, `,"type":`...)
	b = booking.AppendJSONString(b, e.Type)
	b = append(b, `,"time":`...)
	b = append(b, t...)
	b = append(b, `,"subject":`...)
	b = booking.AppendJSONString(b, e.Subject)
	b = append(b, `,"datacontenttype":`...)
	b = booking.AppendJSONString(b, e.DataContentType)
	return append(b, `,"data":`...), nil
}

// BookingType is the type of the event of a booking that reached status s.
func BookingType(s booking.Status) string { return "booking." + string(s) }

// Types are every event type, sorted.
func Types() []string {
	ts := []string{BookingModified, PostingCreated, InvoiceUpdated, LimitsPublished, WebhookDisabled}
	for _, s := range booking.Statuses {
		ts = append(ts, BookingType(s))
	}
	sort.Strings(ts)
	return ts
}

// Known reports whether t is an event type.
func Known(t string) bool { return slices.Contains(Types(), t) }

// CheckTypes validates a list of event types ("*" for all) named field.
func CheckTypes(op slotfare.Op, field string, ts []string) error {
	if len(ts) == 0 {
		return slotfare.Errorf(op, field, "name at least one event type, or \"*\" for all")
	}
	for i, t := range ts {
		if t != "*" && !Known(t) {
			return slotfare.Errorf(op, field+"["+strconv.Itoa(i)+"]", "unknown event type %q (one of %s, or \"*\")", t, strings.Join(Types(), ", "))
		}
	}
	return nil
}

// Matches reports whether an event of type t is among ts ("*" is all).
func Matches(ts []string, t string) bool {
	return slices.Contains(ts, "*") || slices.Contains(ts, t)
}

// Logged is an event as a log keeps it: Pos is its place in Stream (the
// resource's stream on Redis, "" where the log is one sequence).
type Logged struct {
	Stream string
	Pos    string
	Event  Event
}

// Cursor is where a reader stands in each stream: the Pos of the last
// event read there (a stream it does not name is read from its start).
type Cursor map[string]string

// Advance is c past l.
func (c Cursor) Advance(l Logged) Cursor {
	if c == nil {
		c = Cursor{}
	}
	c[l.Stream] = l.Pos
	return c
}

// Reader is a store that keeps the event log.
type Reader interface {
	// ReadEvents are at most limit events after cursor, oldest first
	// within a stream and merged across streams by position. streams are
	// the streams to read where the log has several (every resource's, and
	// "" for events of no resource); a store with one sequence ignores it.
	ReadEvents(ctx context.Context, streams []string, after Cursor, limit int) ([]Logged, error)
}

// Appender is a store that appends events of no booking write (limits
// published, a webhook disabled) to stream, in one atomic step.
type Appender interface {
	AppendEvents(ctx context.Context, stream string, evs []Event) error
}

// DefaultKeep is how many events a log keeps (per stream on Redis) unless
// told otherwise: the oldest beyond it are dropped.
const DefaultKeep = 1 << 20

// Keeper is a log whose retention can be set.
type Keeper interface {
	KeepEvents(n int)
}

// EncodeCursor is c as the opaque string a client sends back, bound to
// filter (a reader's role and types): DecodeCursor refuses it for another.
func EncodeCursor(filter string, c Cursor) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("e1\x00" + filterSum(filter))
	for _, k := range keys {
		b.WriteString("\x00" + k + "\x00" + c[k])
	}
	return base64.RawURLEncoding.EncodeToString([]byte(b.String()))
}

// DecodeCursor reads what EncodeCursor made for the same filter; anything
// else is Invalid naming "after".
func DecodeCursor(op slotfare.Op, filter, s string) (Cursor, error) {
	c := Cursor{}
	if s == "" {
		return c, nil
	}
	bad := slotfare.Errorf(op, "after", "not a cursor of this listing (it must come from next_cursor of the same type filter and role)")
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	parts := strings.Split(string(raw), "\x00")
	if len(parts) < 2 || len(parts)%2 != 0 || parts[0] != "e1" || parts[1] != filterSum(filter) {
		return nil, bad
	}
	for i := 2; i < len(parts); i += 2 {
		c[parts[i]] = parts[i+1]
	}
	return c, nil
}

func filterSum(filter string) string {
	s := sha256.Sum256([]byte(filter))
	return base64.RawURLEncoding.EncodeToString(s[:9])
}

// Less orders two positions of one stream: decimal sequences, or Redis
// stream ids ("ms-seq").
func Less(a, b string) bool {
	am, as := splitPos(a)
	bm, bs := splitPos(b)
	if am != bm {
		return am < bm
	}
	return as < bs
}

func splitPos(p string) (uint64, uint64) {
	ms, seq, _ := strings.Cut(p, "-")
	m, _ := strconv.ParseUint(ms, 10, 64)
	s, _ := strconv.ParseUint(seq, 10, 64)
	return m, s
}

// Merge merges streams' pages (each oldest first) into at most limit
// events, by position and then stream name.
func Merge(pages [][]Logged, limit int) []Logged {
	var all []Logged
	for _, p := range pages {
		all = append(all, p...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Pos != all[j].Pos {
			return Less(all[i].Pos, all[j].Pos)
		}
		return all[i].Stream < all[j].Stream
	})
	return all[:min(len(all), limit)]
}

// Log is an event log in a process's memory: one sequence, its user
// guards it. The zero value is empty and keeps DefaultKeep events.
type Log struct {
	seq  uint64
	evs  []Logged
	keep int
}

// Add appends evs.
func (l *Log) Add(evs []Event) {
	for _, e := range evs {
		l.seq++
		l.evs = append(l.evs, Logged{Pos: strconv.FormatUint(l.seq, 10), Event: e})
	}
	keep := l.keep
	if keep < 1 {
		keep = DefaultKeep
	}
	if len(l.evs) > keep+keep/8 {
		l.evs = append([]Logged(nil), l.evs[len(l.evs)-keep:]...)
	}
}

// Keep sets how many events the log keeps.
func (l *Log) Keep(n int) { l.keep = n }

// Read are at most limit events after c[""].
func (l *Log) Read(c Cursor, limit int) []Logged {
	after, _ := strconv.ParseUint(c[""], 10, 64)
	i := sort.Search(len(l.evs), func(i int) bool { p, _ := strconv.ParseUint(l.evs[i].Pos, 10, 64); return p > after })
	return append([]Logged(nil), l.evs[i:min(len(l.evs), i+limit)]...)
}
