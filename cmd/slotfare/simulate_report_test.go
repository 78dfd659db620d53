package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"slotfare/booking/sim"
)

// chromium is Debian's chromium, which .ci/run installs; without it the
// test says why it skips (or fails where SLOTFARE_REQUIRE_CHROMIUM is set).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "the report's browser test needs Chromium (Debian's chromium package, which .ci/run installs): none of chromium, chromium-browser or google-chrome is on PATH"
	if os.Getenv("SLOTFARE_REQUIRE_CHROMIUM") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// chartCheck is what the page says of its charts: how many, the text of
// their axis labels and ticks, and the texts drawn outside their SVG.
type chartCheck struct {
	Figures int
	Titles  []string
	Labels  []string
	Clipped []string
	Scripts int
	Links   int
	Text    string
}

const chartCheckJS = `(() => {
  const figs = [...document.querySelectorAll("figure.chart")];
  const clipped = [];
  for (const f of figs) {
    const box = f.querySelector("svg").getBoundingClientRect();
    for (const t of f.querySelectorAll("svg text")) {
      const r = t.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) clipped.push(t.textContent);
    }
  }
  return {Figures: figs.length, Titles: figs.map(f => f.querySelector("figcaption").textContent),
    Labels: [...document.querySelectorAll("svg text")].map(t => t.textContent), Clipped: clipped,
    Scripts: document.querySelectorAll("script[src]").length, Links: document.querySelectorAll("link[href]").length,
    Text: document.getElementById("charts").textContent};
})()`

// TestSimulateReportInBrowser: --out's index.html stands alone (no script
// or style loaded from elsewhere) and, opened in headless Chromium, draws
// rm's and overbooking's charts with the dashboard's components: a title
// that asks a question, money axes naming the currency, a share axis
// ending at 100%, no text outside its chart. A screenshot goes to the
// test's artifact directory.
func TestSimulateReportInBrowser(t *testing.T) {
	path := chromium(t)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", "--scenario", twoSites, "--experiment", "rm,overbooking", "--days", "1", "--resources", "A", "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 900), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancelC := chromedp.NewContext(actx)
	defer cancelC()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, "index.html")), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatal(err)
	}
	c, err := chromedp.Run(ctx, chromedp.Evaluate[chartCheck](chartCheckJS))
	if err != nil {
		t.Fatal(err)
	}
	labels := strings.Join(c.Labels, "|")
	// Each resource of the overbooking runs has its net revenue chart and,
	// where summary.json says someone was denied in the window, a denials
	// chart, else a sentence saying nobody was.
	want := 3 // rm's
	for _, r := range overbookingResources(t, dir) {
		want++
		if deniedInWindow(t, dir, r) {
			want++
		} else if !strings.Contains(c.Text, "No booking was denied at its start on "+r) {
			t.Errorf("nobody was denied on %s and the report does not say so", r)
		}
	}
	if c.Figures != want || c.Scripts != 0 || c.Links != 0 || len(c.Clipped) > 0 {
		t.Fatalf("%d charts (want %d: rm 3, overbooking's revenue per resource, its denials where any): %q; %d scripts and %d styles loaded from elsewhere, clipped %q", c.Figures, want, c.Titles, c.Scripts, c.Links, c.Clipped)
	}
	for _, title := range c.Titles {
		if !strings.Contains(title, "?") {
			t.Errorf("the title %q asks nothing", title)
		}
	}
	if !strings.Contains(labels, "revenue (EUR)") || !strings.Contains(labels, "|100%|") || strings.Contains(labels, "|120%|") {
		t.Errorf("axes: money should name EUR (the scenario's currency), the share axis end at 100%%: %s", labels)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.ArtifactDir(), "simulate-report.png")
	if d := os.Getenv("SLOTFARE_SCREENSHOTS"); d != "" {
		shot = filepath.Join(d, "simulate-report.png")
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
}

// overbookingResources are the resources of summary.json's overbooking
// runs, in order of first appearance.
func overbookingResources(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, r := range readSummary(t, dir).Overbooking.Runs {
		if !slices.Contains(out, r.Resource) {
			out = append(out, r.Resource)
		}
	}
	return out
}

func readSummary(t *testing.T, dir string) sim.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum sim.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Overbooking == nil {
		t.Fatal("summary.json has no overbooking experiment")
	}
	return sum
}

// deniedInWindow says whether summary.json in dir has a run of the
// overbooking experiment that denied a booking on resource in the window.
func deniedInWindow(t *testing.T, dir, resource string) bool {
	t.Helper()
	for _, r := range readSummary(t, dir).Overbooking.Runs {
		if r.Resource == resource && r.DeniedInWindow > 0 {
			return true
		}
	}
	return false
}
