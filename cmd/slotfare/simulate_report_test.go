package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
	if !strings.Contains(c.Text, "No booking was denied at its start on A") {
		t.Errorf("the report does not say that nothing was denied on A")
	}
	if c.Figures != 5 || c.Scripts != 0 || c.Links != 0 || len(c.Clipped) > 0 {
		t.Fatalf("%d charts (want 5: rm 3, overbooking 1 per resource, none denied), %d scripts and %d styles loaded from elsewhere, clipped %q", c.Figures, c.Scripts, c.Links, c.Clipped)
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
