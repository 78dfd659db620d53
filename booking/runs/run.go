package runs

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"slotfare"
)

// Run is one finished run of an application profile on a resource: how long
// it executed (Runtime) and, when it moved data, how long that took
// (Transfer) and how many bytes (Bytes). ID makes recording it idempotent:
// a second Append of the same ID on the same resource is the first one
// again, so a retried script does not count a run twice (a completed
// booking's run has the booking's id).
type Run struct {
	ID         string        `json:"run_id"`
	Profile    string        `json:"profile"`
	ResourceID string        `json:"resource_id"`
	Runtime    time.Duration `json:"-"`
	Transfer   time.Duration `json:"-"`
	Bytes      int64         `json:"bytes_transferred,omitempty"`
	FinishedAt time.Time     `json:"finished_at"`
	// AccountID is who recorded it: the provider's or user's account, or
	// the booking's.
	AccountID  string    `json:"account_id,omitempty"`
	RecordedAt time.Time `json:"recorded_at"`
}

// runJSON is Run's wire and stored form: durations in seconds.
type runJSON struct {
	ID         string    `json:"run_id"`
	Profile    string    `json:"profile"`
	ResourceID string    `json:"resource_id"`
	Runtime    float64   `json:"runtime_seconds"`
	Transfer   float64   `json:"transfer_seconds"`
	Bytes      int64     `json:"bytes_transferred"`
	FinishedAt time.Time `json:"finished_at"`
	AccountID  string    `json:"account_id,omitempty"`
	RecordedAt time.Time `json:"recorded_at"`
}

// MarshalJSON writes the run with its durations in seconds, times in UTC.
func (r Run) MarshalJSON() ([]byte, error) {
	return json.Marshal(runJSON{ID: r.ID, Profile: r.Profile, ResourceID: r.ResourceID, Runtime: r.Runtime.Seconds(),
		Transfer: r.Transfer.Seconds(), Bytes: r.Bytes, FinishedAt: r.FinishedAt.UTC(), AccountID: r.AccountID, RecordedAt: r.RecordedAt.UTC()})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *Run) UnmarshalJSON(data []byte) error {
	d, err := DecodeRun(data)
	*r = d
	return err
}

// DecodeRun reads a stored run (a Store adapter's): one pass of encoding/json over it (a
// json.Unmarshal into a Run validates the bytes before UnmarshalJSON, then
// again inside; a prediction reads up to twice DefaultRecent runs).
func DecodeRun(data []byte) (Run, error) {
	var j runJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return Run{}, err
	}
	return Run{ID: j.ID, Profile: j.Profile, ResourceID: j.ResourceID, Runtime: seconds(j.Runtime), Transfer: seconds(j.Transfer),
		Bytes: j.Bytes, FinishedAt: j.FinishedAt, AccountID: j.AccountID, RecordedAt: j.RecordedAt}, nil
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// MaxRuntime bounds a run's runtime and transfer time: a year and a
// day (a booking is at most 366 days).
const MaxRuntime = 367 * 24 * time.Hour

// validName reports whether s is a profile or run id: 1-128 letters,
// digits, '.', '_', '-', ':', '/' or '+' (no spaces, no separators the
// stores' keys use).
func validName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == '-', c == ':', c == '/', c == '+':
		default:
			return false
		}
	}
	return true
}

// CheckProfile checks an application profile's name, naming field.
func CheckProfile(op slotfare.Op, field, profile string) error {
	if profile == "" {
		return slotfare.Errorf(op, field, "must not be empty")
	}
	if !validName(profile) {
		return slotfare.Errorf(op, field, "%q is not a profile: want 1-128 letters, digits, '.', '_', '-', ':', '/' or '+'", profile)
	}
	return nil
}

// Validate checks a run before it is stored, naming the wire field of each
// fault (runtime_seconds, ...). The resource's existence is the caller's
// to check.
func (r Run) Validate() error {
	const op slotfare.Op = "runs.Validate"
	r = normal(r)
	var errs []error
	if r.ID != "" && !validName(r.ID) {
		errs = append(errs, slotfare.Errorf(op, "run_id", "%q is not a run id: want 1-128 letters, digits, '.', '_', '-', ':', '/' or '+'", r.ID))
	}
	if err := CheckProfile(op, "profile", r.Profile); err != nil {
		errs = append(errs, err)
	}
	if r.ResourceID == "" {
		errs = append(errs, slotfare.Errorf(op, "resource_id", "must not be empty"))
	}
	if r.Runtime <= 0 || r.Runtime > MaxRuntime {
		errs = append(errs, slotfare.Errorf(op, "runtime_seconds", "must be at least a millisecond and at most a year, not %v s", r.Runtime.Seconds()))
	}
	if r.Transfer < 0 || r.Transfer > MaxRuntime {
		errs = append(errs, slotfare.Errorf(op, "transfer_seconds", "must be at least 0 and at most a year, not %v s", r.Transfer.Seconds()))
	}
	if r.Bytes < 0 {
		errs = append(errs, slotfare.Errorf(op, "bytes_transferred", "must be at least 0, not %d", r.Bytes))
	}
	if r.Bytes > 0 && r.Transfer == 0 {
		errs = append(errs, slotfare.Errorf(op, "transfer_seconds", "give the time bytes_transferred took"))
	}
	if r.FinishedAt.IsZero() {
		errs = append(errs, slotfare.Errorf(op, "finished_at", "is required"))
	}
	return slotfare.Join(errs...)
}

// normal is r as stored: durations and times to the millisecond, times in
// UTC (the order every store keeps runs in: finished_at, then run id).
func normal(r Run) Run {
	r.Runtime = r.Runtime.Round(time.Millisecond)
	r.Transfer = r.Transfer.Round(time.Millisecond)
	r.FinishedAt = r.FinishedAt.UTC().Truncate(time.Millisecond)
	r.RecordedAt = r.RecordedAt.UTC()
	return r
}

// same reports whether two records of one run id say the same run (what a
// retry sends again): the same profile, resource, runtime, transfer and
// bytes. When it finished does not count (a retry that left finished_at
// out defaults it to a later now), nor when it was recorded or by whom.
func same(a, b Run) bool {
	return a.Profile == b.Profile && a.ResourceID == b.ResourceID && a.Runtime == b.Runtime && a.Transfer == b.Transfer &&
		a.Bytes == b.Bytes
}

// HasTransfer reports whether r says what bandwidth its resource had.
func (r Run) HasTransfer() bool { return r.Bytes > 0 && r.Transfer > 0 }

// bandwidth is r's bytes per second while it moved its data.
func (r Run) bandwidth() float64 { return float64(r.Bytes) / r.Transfer.Seconds() }

// CheckRetry is what an Append answers when r's id is stored already:
// nil when stored says the same run (a retry: the stored run is the
// answer), otherwise a Conflict naming run_id.
func CheckRetry(stored, r Run) error {
	if !same(stored, r) {
		return idConflict(r)
	}
	return nil
}

func idConflict(r Run) error {
	return slotfare.E(slotfare.Op("runs.Append"), slotfare.Conflict, slotfare.Field("run_id"),
		fmt.Sprintf("run %s on %s is already recorded with other values", r.ID, r.ResourceID))
}
