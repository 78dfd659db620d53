package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"slotfare"
	"slotfare/booking"
	"slotfare/booking/boltstore"
	"slotfare/booking/config"
	"slotfare/booking/deploy/deploytest"
	"slotfare/booking/service"
)

// chromium is the browser the dashboard's tests drive: Debian's chromium,
// which .ci/run installs.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "the dashboard's browser tests need Chromium (Debian's chromium package, which .ci/run installs): none of chromium, chromium-browser or google-chrome is on PATH"
	if os.Getenv("SLOTFARE_REQUIRE_CHROMIUM") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// dashboardServer is the demo behind a real HTTP server with known
// bookings on RAL around the real time (the browser's today): some ran
// hours ago (completed, a no-show), some are ahead (committed, one
// cancelled with a penalty, one held).
func dashboardServer(t *testing.T) (*httptest.Server, *echo.Echo) {
	cfg, err := config.DecodeConfig(slotfare.DemoConfig)
	if err != nil {
		t.Fatal(err)
	}
	store, err := boltstore.Open(t.TempDir(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Minute)
	clk := &testClock{t: now.Add(-6 * time.Hour)}
	svc, err := service.Open(cfg, deploytest.Embedded(t, store), service.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	e := New(svc, Options{Ready: readyOf(svc)})
	validating.Store(e, t)
	t.Cleanup(func() { validating.Delete(e) })
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	alice := booking.Principal{AccountID: "alice", Role: booking.RoleUser, VO: "1"}
	bob := booking.Principal{AccountID: "bob", Role: booking.RoleUser, VO: "2"}
	book := func(p booking.Principal, start time.Time, hours, nodes int, class string, commit bool) booking.Booking {
		t.Helper()
		b, _, err := svc.Hold(context.Background(), p, booking.HoldRequest{ResourceID: "RAL", Start: start, End: start.Add(time.Duration(hours) * time.Hour),
			Nodes: nodes, FareClass: class}, booking.Idempotency{})
		if err != nil {
			t.Fatal(err)
		}
		if commit {
			if b, err = svc.Commit(context.Background(), p, b.ID); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	ran := book(bob, now.Add(-5*time.Hour), 1, 4, "premium", true)
	book(alice, now.Add(-5*time.Hour), 1, 3, "business", true) // a no-show
	ranToo := book(alice, now.Add(-5*time.Hour), 2, 2, "budget", true)
	book(bob, now.Add(2*time.Hour), 3, 5, "premium", true)
	book(alice, now.Add(26*time.Hour), 4, 6, "budget", true)
	// 30 business nodes fit RAL at any time of day (its business limit is
	// 31 at peak, more elsewhere), so the case holds whenever it runs.
	book(alice, now.Add(50*time.Hour), 2, 30, "business", true)
	gone := book(alice, now.Add(30*time.Hour), 2, 2, "business", true)
	if _, err := svc.Cancel(context.Background(), alice, gone.ID); err != nil {
		t.Fatal(err)
	}
	clk.Set(now.Add(-5*time.Hour - 30*time.Minute))
	for _, b := range []struct {
		p  booking.Principal
		id string
	}{{bob, ran.ID}, {alice, ranToo.ID}} {
		if _, err := svc.CheckIn(context.Background(), b.p, b.id); err != nil {
			t.Fatal(err)
		}
	}
	for _, at := range []time.Time{now.Add(-5 * time.Hour), now} {
		clk.Set(at)
		if err := svc.Tick(at); err != nil {
			t.Fatal(err)
		}
	}
	book(alice, now.Add(3*time.Hour), 1, 1, "budget", false)
	return srv, e
}

// browser starts headless Chromium for the test.
func browser(t *testing.T) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 1000), chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("lang", "en-GB"))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	return ctx
}

// shown is a figure the page shows (app.js's value()).
type shown struct {
	K, V, From, To, Text string
}

func figures(t *testing.T, ctx context.Context) map[string]shown {
	t.Helper()
	list, err := chromedp.Run(ctx, chromedp.Evaluate[[]shown](shownJS("")))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]shown{}
	for _, s := range list {
		out[s.K] = s
	}
	return out
}

// lowContrastJS lists the texts whose contrast with their background is
// below WCAG AA (4.5:1, or 3:1 for large text), SVG text against the
// chart's background.
const lowContrastJS = `(() => {
  const parse = (c) => { const m = (c || "").match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const bg = (el) => { for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0) return c; }
    return {r: 255, g: 255, b: 255, a: 1}; };
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || el.closest("dialog:not([open]), script, style, title")) continue;
    const cs = getComputedStyle(el);
    const svg = el.closest("svg");
    const fg = parse(svg ? cs.fill : cs.color);
    if (!fg) continue;
    const l1 = lum(fg), l2 = lum(bg(svg ? svg.parentElement : el));
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(cs.fontSize), bold = Number(cs.fontWeight) >= 700;
    if (ratio < (size >= 24 || (bold && size >= 18.66) ? 3 : 4.5)) bad.push(n.textContent.trim().slice(0, 40) + ": " + ratio.toFixed(2));
  }
  return bad;
})()`

// checkContrast fails the test where a page's text is below WCAG AA.
func checkContrast(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](lowContrastJS))
	if err != nil || len(bad) > 0 {
		t.Fatalf("%s: text below WCAG AA contrast: %v %v", page, bad, err)
	}
}

// shownJS lists the figures under the elements matching within (a CSS
// selector and a space, or "" for the whole page).
func shownJS(within string) string {
	return "[...document.querySelectorAll('" + within + "[data-k]')].map(e => ({K: e.dataset.k, V: e.dataset.v, " +
		"From: e.dataset.from || '', To: e.dataset.to || '', Text: e.textContent}))"
}

// open loads fragment and waits until the page says it is drawn.
func open(t *testing.T, ctx context.Context, base, fragment string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.body && (document.body.dataset.ready = "")`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/dashboard/"+fragment), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatalf("%s: %v", fragment, err)
	}
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	keep(t, name, png)
}

// keep writes a screenshot into the test's artifact directory, or
// $SLOTFARE_SCREENSHOTS when set, and logs where.
func keep(t *testing.T, name string, png []byte) {
	t.Helper()
	dir := t.ArtifactDir()
	if d := os.Getenv("SLOTFARE_SCREENSHOTS"); d != "" {
		dir = d
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// report asks the API what the page asked, through the validating echo
// (every answer is checked against /openapi.json).
func report(t *testing.T, e *echo.Echo, kind, id, from, to string, into any) {
	t.Helper()
	rec := call{method: "GET", key: "demo-provider", path: fmt.Sprintf("/v1/resources/%s/%s?from=%s&to=%s", id, kind, url.QueryEscape(from), url.QueryEscape(to))}.run(e)
	if rec.Code != 200 {
		t.Fatalf("%s: %d %s", kind, rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), into); err != nil {
		t.Fatal(err)
	}
}

func peakOf(steps []service.OccupancyStep) int {
	peak := 0
	for _, s := range steps {
		peak = max(peak, s.Held+s.Committed+s.CheckedIn)
	}
	return peak
}

func sameMoney(t *testing.T, what string, s shown, want decimal.Decimal, currency string) {
	t.Helper()
	got, err := decimal.NewFromString(s.V)
	if err != nil || !got.Equal(want) || !strings.Contains(s.Text, currency) {
		t.Fatalf("%s: the page shows %q (value %s), the API says %s %s", what, s.Text, s.V, want, currency)
	}
}

// TestDashboardShowsTheAPIsFigures drives the dashboard in headless
// Chromium against a server with known bookings: the overview's and the
// resource page's occupancy, bookings per class and revenue equal the
// API's answers over the same windows, the configuration page shows the
// resource, an unknown resource shows the API's 404, a key typed at the
// prompt opens the overview, and a wrong key shows the API's 401.
// Screenshots of each page go to the test's artifact directory (or
// $SLOTFARE_SCREENSHOTS).
func TestDashboardShowsTheAPIsFigures(t *testing.T) {
	ctx := browser(t)
	srv, e := dashboardServer(t)
	open(t, ctx, srv.URL, "#key=demo-provider")
	if frag, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash`)); err != nil || frag != "#/" {
		t.Fatalf("the key stays in the address: %q %v", frag, err)
	}
	var occ service.Occupancy
	ral, err := chromedp.Run(ctx, chromedp.Evaluate[[]shown](shownJS(`[data-resource="RAL"] `))) // RAL's card among the ten
	if err != nil || len(ral) != 2 {
		t.Fatalf("RAL's card: %v %v", ral, err)
	}
	report(t, e, "occupancy", "RAL", ral[0].From, ral[0].To, &occ)
	if want := peakOf(occ.Steps); ral[0].V != fmt.Sprint(want) {
		t.Fatalf("RAL today: the page shows peak %s (%q), the API %d", ral[0].V, ral[0].Text, want)
	}
	var rev service.RevenueReport
	report(t, e, "revenue", "RAL", ral[1].From, ral[1].To, &rev)
	sameMoney(t, "RAL's week", ral[1], rev.Total.Net, "GRD")
	// First paint is logged, not asserted: a test does not time the host.
	if fcp, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(performance.getEntriesByName("first-contentful-paint")[0] || {startTime: -1}).startTime`)); err == nil {
		t.Logf("overview: first contentful paint after %.0f ms", fcp)
	}
	screenshot(t, ctx, "dashboard-overview.png")
	checkContrast(t, ctx, "overview")
	keyboardToRAL(t, ctx)

	day := time.Now().In(must(time.LoadLocation("Europe/London"))).AddDate(0, 0, -1).Format(time.DateOnly)
	open(t, ctx, srv.URL, "#/r/RAL?from="+day+"&days=4&live=0")
	window, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.getElementById("report").dataset.from, document.getElementById("report").dataset.to]`))
	if err != nil {
		t.Fatal(err)
	}
	from, to := window[0], window[1]
	fig := figures(t, ctx)
	report(t, e, "occupancy", "RAL", from, to, &occ)
	if want := peakOf(occ.Steps); fig["occ-peak"].V != fmt.Sprint(want) || want < 5 {
		t.Fatalf("RAL's peak: the page shows %s, the API %d", fig["occ-peak"].V, want)
	}
	var ctl service.ControlReport
	report(t, e, "booking-control", "RAL", from, to, &ctl)
	booked := 0
	for n, in := range ctl.Instances {
		for _, c := range in.Classes {
			if got := fig[fmt.Sprintf("ctl-%d-%s", n, c.Class)].V; got != fmt.Sprint(c.Bookings) {
				t.Fatalf("instance %d %s: the page shows %q, the API %d", n, c.Class, got, c.Bookings)
			}
			booked += c.Bookings
		}
	}
	report(t, e, "revenue", "RAL", from, to, &rev)
	sameMoney(t, "RAL's revenue", fig["rev-net"], rev.Total.Net, "GRD")
	if booked == 0 || !rev.Total.Penalties.IsPositive() {
		t.Fatalf("the case shows no bookings (%d) or no penalty (%s)", booked, rev.Total.Penalties)
	}
	screenshot(t, ctx, "dashboard-resource.png")
	top, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	keep(t, "dashboard-resource-top.png", top)
	checkContrast(t, ctx, "resource")

	open(t, ctx, srv.URL, "#/r/RAL/config")
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(text, "PUT /v1/resources/RAL/fare-classes") || !strings.Contains(text, "Europe/London") {
		t.Fatalf("the configuration page: %v\n%s", err, text)
	}
	screenshot(t, ctx, "dashboard-config.png")
	checkContrast(t, ctx, "configuration")

	open(t, ctx, srv.URL, "#/r/NOPE")
	if text, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.error[role="alert"]`))); err != nil || !strings.Contains(text, "404") {
		t.Fatalf("an unknown resource: %v %q", err, text)
	}
	askedForKey(t, ctx, srv.URL)

	open(t, ctx, srv.URL, "#key=not-a-key")
	if text, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.error[role="alert"]`))); err != nil || !strings.Contains(text, "401") {
		t.Fatalf("a wrong key: %v %q", err, text)
	}
	screenshot(t, ctx, "dashboard-wrong-key.png")
	checkContrast(t, ctx, "wrong key")
}

// keyboardToRAL walks the overview by keyboard: the first Tab reaches the
// skip link, and Enter on RAL's link opens its page.
func keyboardToRAL(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
		t.Fatal(err)
	}
	if first, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.textContent`)); err != nil || first != "Skip to content" {
		t.Fatalf("the first Tab reaches %q (%v), not the skip link", first, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.body.dataset.ready = ""; document.querySelector('a[href="#/r/RAL"]').focus()`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatal(err)
	}
	if h, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main h2"))); err != nil || !strings.HasPrefix(h, "RAL") {
		t.Fatalf("Enter on RAL's link opened %q (%v)", h, err)
	}
}

// askedForKey: with no key in the tab the page asks for one, and the key
// typed there opens the overview.
func askedForKey(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`sessionStorage.clear(); document.body.dataset.ready = ""`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/dashboard/#/"), chromedp.WaitVisible(chromedp.CSS("#keyinput")),
		chromedp.SendKeys(chromedp.CSS("#keyinput"), "demo-provider\r"), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatalf("the key prompt: %v", err)
	}
	if cards, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-resource]").length`)); err != nil || cards != 10 {
		t.Fatalf("after the prompt the overview shows %d resources (%v), want the demo's 10", cards, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
