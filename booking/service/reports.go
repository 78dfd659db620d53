package service

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/config"
	"slotfare/booking/control"
	"slotfare/ledger"
	"slotfare/pricing"
)

// Read models for a provider's dashboard: occupancy, booking control,
// revenue and denials of one resource over a window. Each is computed from
// what the store keeps (the resource's bookings, postings and refusals) and
// from booking control's limits as the stored history gives them, so every
// replica answers the same figures for the bookings. They read the resource's whole
// history once per call: cheap on the demo's thousands of bookings, and the
// place to add a range index when a resource keeps millions.

// MaxReportWindow bounds a report's window.
const MaxReportWindow = 93 * 24 * time.Hour

// OccupancyStep is one piece of the occupancy step function: over [Start,
// End) the nodes held, committed and checked in (active, or committed with
// the job there; completed and terminated bookings count as checked in for
// the time they ran), beside the capacity and the overbooking limit in
// force.
type OccupancyStep struct {
	Start            time.Time `json:"start"`
	End              time.Time `json:"end"`
	Period           string    `json:"period"`
	Capacity         int       `json:"capacity"`
	OverbookingLimit int       `json:"overbooking_limit"`
	Held             int       `json:"held"`
	Committed        int       `json:"committed"`
	CheckedIn        int       `json:"checked_in"`
}

// Occupancy is GET /v1/resources/{id}/occupancy.
type Occupancy struct {
	ResourceID string          `json:"resource_id"`
	TimeZone   string          `json:"time_zone"`
	From       time.Time       `json:"from"`
	To         time.Time       `json:"to"`
	Steps      []OccupancyStep `json:"steps"`
}

// CurvePoint is a booking curve's point: the bookings (and their nodes)
// made at least DaysBefore days before the instance's start.
type CurvePoint struct {
	DaysBefore int `json:"days_before"`
	Bookings   int `json:"bookings"`
	Nodes      int `json:"nodes"`
}

// ClassControl is one class in one rate-period instance.
type ClassControl struct {
	Class string `json:"class"`
	Rank  int    `json:"rank"`
	// Bookings is the most nodes the class holds at any instant of the
	// instance (held, committed, checked in): what its limit bounds.
	Bookings     int `json:"bookings"`
	BookingLimit int `json:"booking_limit"`
	// ProtectionLevel is what this class and the ones above protect from
	// the classes below (seed 004 Sec. 7.4); 0 for the lowest class.
	ProtectionLevel float64 `json:"protection_level"`
	// ForecastMean and ForecastSD are the demand forecast the limits came
	// from; null while the period has too little history.
	ForecastMean *float64     `json:"forecast_mean"`
	ForecastSD   *float64     `json:"forecast_sd"`
	Curve        []CurvePoint `json:"curve"`
}

// ControlInstance is one rate-period instance of a ControlReport.
type ControlInstance struct {
	Start            time.Time      `json:"start"`
	End              time.Time      `json:"end"`
	Period           string         `json:"period"`
	Capacity         int            `json:"capacity"`
	OverbookingLimit int            `json:"overbooking_limit"`
	ShowRate         float64        `json:"show_rate"`
	Source           string         `json:"source"`
	Classes          []ClassControl `json:"classes"`
}

// ControlReport is GET /v1/resources/{id}/booking-control.
type ControlReport struct {
	ResourceID string            `json:"resource_id"`
	TimeZone   string            `json:"time_zone"`
	Method     string            `json:"method"`
	From       time.Time         `json:"from"`
	To         time.Time         `json:"to"`
	Instances  []ControlInstance `json:"instances"`
}

// RevenueFigures are money by kind, as invoices show it: charges (with
// price changes, down ones negative), penalties, refunds (a cancellation
// credits the whole charge back and bills its penalty apart) and
// compensation, refunds and compensation as positive amounts, and Net =
// charges + penalties - refunds - compensation.
type RevenueFigures struct {
	Charges      decimal.Decimal `json:"charges"`
	Penalties    decimal.Decimal `json:"penalties"`
	Refunds      decimal.Decimal `json:"refunds"`
	Compensation decimal.Decimal `json:"compensation"`
	Net          decimal.Decimal `json:"net"`
}

func (f *RevenueFigures) add(p ledger.Posting) {
	amt := p.CustomerAmount()
	switch p.InvoiceKind() {
	case ledger.KindCharge:
		f.Charges = f.Charges.Add(amt)
	case ledger.KindCancellationPenalty, ledger.KindNoShowPenalty:
		f.Penalties = f.Penalties.Add(amt)
	case ledger.KindRefund:
		f.Refunds = f.Refunds.Sub(amt)
	case ledger.KindCompensation:
		f.Compensation = f.Compensation.Sub(amt)
	}
	f.Net = f.Net.Add(amt)
}

// RevenueRow is the money of one day, class and rate period.
type RevenueRow struct {
	Date   string `json:"date"`
	Class  string `json:"class"`
	Period string `json:"period"`
	RevenueFigures
}

// RevenueReport is GET /v1/resources/{id}/revenue. Money belongs to the
// day, class and period of its booking's start in the resource's time
// zone (a compensation posted without a booking: to its posting's time),
// whenever it was posted: a day's figure is what its service earned.
type RevenueReport struct {
	ResourceID string         `json:"resource_id"`
	TimeZone   string         `json:"time_zone"`
	Currency   string         `json:"currency"`
	From       time.Time      `json:"from"`
	To         time.Time      `json:"to"`
	Rows       []RevenueRow   `json:"rows"`
	Total      RevenueFigures `json:"total"`
	// LastWeek is the same window seven days earlier.
	LastWeek RevenueFigures `json:"last_week"`
}

// DenialRow counts one day's and class's bookings denied at their start
// (and what their compensation cost), no-shows, and refusals of a closed
// class, by the day of the booking's (or the refused request's) start.
type DenialRow struct {
	Date          string          `json:"date"`
	Class         string          `json:"class"`
	Denied        int             `json:"denied"`
	DeniedNodes   int             `json:"denied_nodes"`
	Compensation  decimal.Decimal `json:"compensation"`
	NoShows       int             `json:"no_shows"`
	NoShowNodes   int             `json:"no_show_nodes"`
	RefusedClosed int             `json:"refused_closed"`
}

// DenialReport is GET /v1/resources/{id}/denials.
type DenialReport struct {
	ResourceID string      `json:"resource_id"`
	TimeZone   string      `json:"time_zone"`
	Currency   string      `json:"currency"`
	Strategy   string      `json:"strategy"`
	Policy     string      `json:"policy"`
	From       time.Time   `json:"from"`
	To         time.Time   `json:"to"`
	Rows       []DenialRow `json:"rows"`
}

// reportScope is what every report reads: the resource's configuration and
// limits as of the call, and its stored bookings.
type reportScope struct {
	id, zone, currency string
	loc                *time.Location
	rate               *pricing.RateCalendar
	classes            []pricing.FareClass
	rc                 config.ResourceConfig
	method, policy     string
	strategy           string
	from, to           time.Time
	history            []booking.Booking
}

func checkWindow(op slotfare.Op, from, to time.Time) error {
	switch {
	case from.IsZero():
		return slotfare.Errorf(op, "from", "is required (RFC 3339)")
	case to.IsZero():
		return slotfare.Errorf(op, "to", "is required (RFC 3339)")
	case !to.After(from):
		return slotfare.Errorf(op, "to", "must be after from")
	case to.Sub(from) > MaxReportWindow:
		return slotfare.Errorf(op, "to", "the window is longer than %d days", int(MaxReportWindow/(24*time.Hour)))
	}
	return nil
}

func (s *Service) scope(ctx context.Context, op slotfare.Op, p booking.Principal, id string, from, to time.Time) (*reportScope, error) {
	if err := needRole(op, p, booking.RoleProvider); err != nil {
		return nil, err
	}
	if err := checkWindow(op, from, to); err != nil {
		return nil, err
	}
	r := s.resource(id)
	if r == nil {
		return nil, slotfare.E(op, slotfare.NotFound, fmt.Sprintf("no resource %q", id))
	}
	r.mu.Lock()
	if err := r.inService(op); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	sc := &reportScope{id: id, zone: r.rc.TimeZone, currency: r.rc.Currency, loc: r.rate.Location(), rate: r.rate,
		classes: r.classes, rc: r.rc, method: string(r.rc.Limits.Method), policy: string(r.rc.Overbooking.Policy),
		strategy: string(r.rc.Overbooking.Denial), from: from.UTC(), to: to.UTC()}
	r.mu.Unlock()
	hist, err := s.historyOf(ctx, id)
	if err != nil {
		return nil, slotfare.E(op, slotfare.Unavailable, err)
	}
	sc.history = hist
	return sc, nil
}

// occupying says where a booking stands on the occupancy: 0 held, 1
// committed, 2 checked in; ok is false when it holds no nodes.
func occupying(b booking.Booking) (kind int, ok bool) {
	switch b.Status {
	case booking.Held:
		return 0, true
	case booking.Committed:
		if b.CheckedIn {
			return 2, true
		}
		return 1, true
	case booking.Active, booking.Completed, booking.Terminated:
		return 2, true
	}
	return 0, false
}

// sold says whether a booking was ever committed (its sale stands or
// was settled): what a booking curve counts.
func sold(b booking.Booking) bool {
	switch b.Status {
	case booking.Held, booking.Expired, booking.Rejected:
		return false
	case booking.Cancelled:
		return b.Penalty != nil && b.Refund != nil && b.Penalty.Add(*b.Refund).IsPositive()
	}
	return true
}

func overlaps(b booking.Booking, from, to time.Time) bool {
	return b.End.After(from) && b.Start.Before(to)
}

// limitsOf is booking control's limits of each period as a report shows
// them. Only the replica holding the resource's ticker lease keeps its
// control up to the stored history and observations, and only at its
// refresh, so the report builds one from them at now: every replica
// answers the same, and the lease holder's control equals such a replay
// (TestHistoryRefreshEqualsReplay).
func (s *Service) limitsOf(ctx context.Context, sc *reportScope, periods []string) (map[string]control.PeriodLimits, error) {
	out := make(map[string]control.PeriodLimits, len(periods))
	if s.resource(sc.id) == nil {
		return out, nil
	}
	ctl, err := s.replayControl(ctx, sc)
	if err != nil {
		return nil, err
	}
	for _, p := range periods {
		out[p] = ctl.Limits(p)
	}
	return out, nil
}

// replayControl is a booking control of the resource fed its stored
// history, oldest first, its stored refusals and demand records, then
// brought up to now.
// Events the control refuses (a class renamed since) are left out, as the
// resource's own replay leaves them.
func (s *Service) replayControl(ctx context.Context, sc *reportScope) (*control.Control, error) {
	refused, err := s.records.Refusals(ctx, sc.id)
	if err != nil {
		return nil, slotfare.E(slotfare.Op("service.report"), slotfare.Unavailable, err)
	}
	ctl, err := control.New(sc.rc)
	if err != nil {
		return nil, err
	}
	hist := slices.Clone(sc.history)
	sort.Slice(hist, func(i, j int) bool {
		if !hist[i].CreatedAt.Equal(hist[j].CreatedAt) {
			return hist[i].CreatedAt.Before(hist[j].CreatedAt)
		}
		return hist[i].ID < hist[j].ID
	})
	for _, b := range hist {
		for _, ev := range control.History(b) {
			_ = ctl.Observe(ev)
		}
	}
	for _, f := range refused {
		_ = ctl.Observe(control.Event{Kind: control.EventRefused, Class: f.Class, Start: f.Start, End: f.End, At: f.At})
	}
	demand, err := s.storedDemand(ctx, sc.id, s.now())
	if err != nil {
		return nil, slotfare.E(slotfare.Op("service.report"), slotfare.Unavailable, err)
	}
	ctl.SetDemand(demand.Since(sc.id, time.Time{}))
	if _, err := ctl.Recompute(s.now()); err != nil {
		return nil, err
	}
	return ctl, nil
}

func (sc *reportScope) pieces(op slotfare.Op) ([]pricing.PeriodPiece, error) {
	ps, err := sc.rate.Split(sc.from, sc.to)
	if err != nil {
		return nil, slotfare.E(op, err)
	}
	if len(ps) > control.MaxReportInstances {
		return nil, slotfare.Errorf(op, "to", "the window holds %d period instances, more than %d", len(ps), control.MaxReportInstances)
	}
	return ps, nil
}

func periodNames(ps []pricing.PeriodPiece) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		if !seen[p.Period] {
			seen[p.Period] = true
			out = append(out, p.Period)
		}
	}
	return out
}

// Occupancy is the resource's occupancy over [from, to) as a step function
// (provider only): steps change where a booking starts or ends or a rate
// period (and so the overbooking limit) changes; neighbours with the same
// figures are merged.
func (s *Service) Occupancy(ctx context.Context, p booking.Principal, id string, from, to time.Time) (Occupancy, error) {
	const op slotfare.Op = "service.Occupancy"
	sc, err := s.scope(ctx, op, p, id, from, to)
	if err != nil {
		return Occupancy{}, err
	}
	ps, err := sc.pieces(op)
	if err != nil {
		return Occupancy{}, err
	}
	lim, err := s.limitsOf(ctx, sc, periodNames(ps))
	if err != nil {
		return Occupancy{}, err
	}
	type change struct {
		t    time.Time
		kind int
		d    int
	}
	var chs []change
	for _, b := range sc.history {
		k, ok := occupying(b)
		if !ok || !overlaps(b, sc.from, sc.to) {
			continue
		}
		chs = append(chs, change{maxTime(b.Start, sc.from), k, b.Nodes}, change{minTime(b.End, sc.to), k, -b.Nodes})
	}
	sort.Slice(chs, func(i, j int) bool { return chs[i].t.Before(chs[j].t) })
	out := Occupancy{ResourceID: id, TimeZone: sc.zone, From: sc.from, To: sc.to, Steps: []OccupancyStep{}}
	var now [3]int
	i := 0
	for _, pc := range ps {
		at := pc.Start
		for at.Before(pc.End) {
			for i < len(chs) && !chs[i].t.After(at) {
				now[chs[i].kind] += chs[i].d
				i++
			}
			end := pc.End
			if i < len(chs) && chs[i].t.Before(end) {
				end = chs[i].t
			}
			l := lim[pc.Period]
			st := OccupancyStep{Start: at, End: end, Period: pc.Period, Capacity: l.Capacity, OverbookingLimit: l.OverbookingLimit,
				Held: now[0], Committed: now[1], CheckedIn: now[2]}
			out.Steps = appendStep(out.Steps, st)
			at = end
		}
	}
	return out, nil
}

// appendStep appends st, or lengthens the last step when st only
// continues it.
func appendStep(steps []OccupancyStep, st OccupancyStep) []OccupancyStep {
	if n := len(steps); n > 0 {
		last := steps[n-1]
		last.Start, last.End = st.Start, st.End
		if last == st {
			steps[n-1].End = st.End
			return steps
		}
	}
	return append(steps, st)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// BookingControl reports booking control per rate-period instance of
// [from, to) and class (provider only): the nodes each class holds against
// its nested booking limit and protection level, the demand forecast, and
// the booking curve of the bookings sold for the instance.
func (s *Service) BookingControl(ctx context.Context, p booking.Principal, id string, from, to time.Time) (ControlReport, error) {
	const op slotfare.Op = "service.BookingControl"
	sc, err := s.scope(ctx, op, p, id, from, to)
	if err != nil {
		return ControlReport{}, err
	}
	ps, err := sc.pieces(op)
	if err != nil {
		return ControlReport{}, err
	}
	lim, err := s.limitsOf(ctx, sc, periodNames(ps))
	if err != nil {
		return ControlReport{}, err
	}
	byClass := map[string][]booking.Booking{}
	for _, b := range sc.history {
		if overlaps(b, sc.from, sc.to) {
			byClass[b.FareClass] = append(byClass[b.FareClass], b)
		}
	}
	out := ControlReport{ResourceID: id, TimeZone: sc.zone, Method: sc.method, From: sc.from, To: sc.to,
		Instances: make([]ControlInstance, 0, len(ps))}
	for _, pc := range ps {
		l := lim[pc.Period]
		in := ControlInstance{Start: pc.Start.UTC(), End: pc.End.UTC(), Period: pc.Period, Capacity: l.Capacity,
			OverbookingLimit: l.OverbookingLimit, ShowRate: l.ShowRate, Source: l.Source, Classes: make([]ClassControl, 0, len(sc.classes))}
		for i, cl := range sc.classes {
			cc := ClassControl{Class: cl.Name, Rank: i + 1, BookingLimit: l.Limit(i + 1), Curve: []CurvePoint{}}
			if i < len(l.ProtectionLevels) {
				cc.ProtectionLevel = l.ProtectionLevels[i]
			}
			if i < len(l.Demand) {
				m, sd := l.Demand[i].Mean, l.Demand[i].SD
				cc.ForecastMean, cc.ForecastSD = &m, &sd
			}
			cc.Bookings, cc.Curve = classFigures(byClass[cl.Name], in.Start, in.End)
			in.Classes = append(in.Classes, cc)
		}
		out.Instances = append(out.Instances, in)
	}
	return out, nil
}

// classFigures are a class's peak nodes held over [from, to) and the
// booking curve of its bookings sold there: how many were made at least d
// days before from, for every d at which the count changes, furthest first.
func classFigures(bs []booking.Booking, from, to time.Time) (int, []CurvePoint) {
	var holding []booking.Booking
	byDay := map[int][2]int{}
	for _, b := range bs {
		if !overlaps(b, from, to) {
			continue
		}
		if _, ok := occupying(b); ok {
			holding = append(holding, b)
		}
		if sold(b) {
			d := max(0, int(from.Sub(b.CreatedAt)/(24*time.Hour)))
			c := byDay[d]
			byDay[d] = [2]int{c[0] + 1, c[1] + b.Nodes}
		}
	}
	days := make([]int, 0, len(byDay))
	for d := range byDay {
		days = append(days, d)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(days)))
	curve := make([]CurvePoint, 0, len(days))
	n, nodes := 0, 0
	for _, d := range days {
		n, nodes = n+byDay[d][0], nodes+byDay[d][1]
		curve = append(curve, CurvePoint{DaysBefore: d, Bookings: n, Nodes: nodes})
	}
	return peakNodes(holding, from, to), curve
}

// Revenue reports the money of [from, to) per day, class and rate period,
// with its total and the same window's a week before (provider only).
func (s *Service) Revenue(ctx context.Context, p booking.Principal, id string, from, to time.Time) (RevenueReport, error) {
	const op slotfare.Op = "service.Revenue"
	sc, err := s.scope(ctx, op, p, id, from, to)
	if err != nil {
		return RevenueReport{}, err
	}
	posts, err := s.records.ResourcePostings(ctx, id)
	if err != nil {
		return RevenueReport{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	byID := make(map[string]booking.Booking, len(sc.history))
	for _, b := range sc.history {
		byID[b.ID] = b
	}
	out := RevenueReport{ResourceID: id, TimeZone: sc.zone, Currency: sc.currency, From: sc.from, To: sc.to, Rows: []RevenueRow{}}
	week := 7 * 24 * time.Hour
	rows := map[[3]string]*RevenueFigures{}
	var keys [][3]string
	for _, pst := range posts {
		at, class := pst.Time, ""
		if b, ok := byID[pst.BookingID]; ok {
			at, class = b.Start, b.FareClass
		}
		switch {
		case !at.Before(sc.from) && at.Before(sc.to):
			out.Total.add(pst)
			k := [3]string{at.In(sc.loc).Format(time.DateOnly), class, sc.rate.PeriodAt(at)}
			if rows[k] == nil {
				rows[k] = &RevenueFigures{}
				keys = append(keys, k)
			}
			rows[k].add(pst)
		case !at.Before(sc.from.Add(-week)) && at.Before(sc.to.Add(-week)):
			out.LastWeek.add(pst)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
	for _, k := range keys {
		out.Rows = append(out.Rows, RevenueRow{Date: k[0], Class: k[1], Period: k[2], RevenueFigures: *rows[k]})
	}
	return out, nil
}

func lessKey(a, b [3]string) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// Denials reports, per day and class of [from, to), the bookings denied at
// their start and their compensation, the no-shows, and the requests
// refused because their class was closed, with the denial strategy and
// overbooking policy in force (provider only).
func (s *Service) Denials(ctx context.Context, p booking.Principal, id string, from, to time.Time) (DenialReport, error) {
	const op slotfare.Op = "service.Denials"
	sc, err := s.scope(ctx, op, p, id, from, to)
	if err != nil {
		return DenialReport{}, err
	}
	refused, err := s.records.Refusals(ctx, id)
	if err != nil {
		return DenialReport{}, slotfare.E(op, slotfare.Unavailable, err)
	}
	out := DenialReport{ResourceID: id, TimeZone: sc.zone, Currency: sc.currency, Strategy: sc.strategy, Policy: sc.policy,
		From: sc.from, To: sc.to, Rows: []DenialRow{}}
	rows := map[[2]string]*DenialRow{}
	var keys [][2]string
	row := func(at time.Time, class string) *DenialRow {
		k := [2]string{at.In(sc.loc).Format(time.DateOnly), class}
		if rows[k] == nil {
			rows[k] = &DenialRow{Date: k[0], Class: class}
			keys = append(keys, k)
		}
		return rows[k]
	}
	in := func(t time.Time) bool { return !t.Before(sc.from) && t.Before(sc.to) }
	for _, b := range sc.history {
		if !in(b.Start) {
			continue
		}
		switch b.Status {
		case booking.Denied:
			r := row(b.Start, b.FareClass)
			r.Denied++
			r.DeniedNodes += b.Nodes
			if b.Compensation != nil {
				r.Compensation = r.Compensation.Add(*b.Compensation)
			}
		case booking.NoShow:
			r := row(b.Start, b.FareClass)
			r.NoShows++
			r.NoShowNodes += b.Nodes
		}
	}
	for _, rf := range refused {
		if in(rf.Start) {
			row(rf.Start, rf.Class).RefusedClosed++
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		out.Rows = append(out.Rows, *rows[k])
	}
	return out, nil
}
