package api

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"slotfare"
)

// TestMetricsLabelsBounded sends thousands of requests with made-up methods,
// paths and query strings, as an unauthenticated scanner would, and checks
// that /metrics keeps a bounded set of series: every method label is a
// standard method or "other", every route label a registered pattern or
// "unmatched" (issue 9, defect 5: each new method was a new series).
func TestMetricsLabelsBounded(t *testing.T) {
	e, _ := newTestServer(t)
	rng := rand.New(rand.NewPCG(9, 5))
	word := func(n int) string {
		const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		b := make([]byte, 1+rng.IntN(n))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}
	for i := 0; i < 3000; i++ {
		m := methods[rng.IntN(len(methods))]
		if rng.IntN(2) == 0 {
			m = strings.ToUpper(word(12))
		}
		var path string
		switch rng.IntN(4) {
		case 0:
			path = "/" + word(10) + "/" + word(10)
		case 1:
			path = "/v1/bookings/" + word(20)
		case 2:
			path = "/v1/" + word(8) + "?" + word(5) + "=" + word(5)
		default:
			path = "/v1/resources/" + word(6) + "/" + word(6)
		}
		req := httptest.NewRequest(m, path, nil)
		if rng.IntN(2) == 0 {
			req.Header.Set("Authorization", "Bearer "+kAlice)
		}
		e.ServeHTTP(httptest.NewRecorder(), req)
	}

	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d", rec.Code)
	}
	routes := map[string]bool{"unmatched": true}
	for _, r := range e.Routes() {
		routes[r.Path] = true
	}
	okMethod := map[string]bool{"other": true}
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"} {
		okMethod[m] = true
	}
	series := 0
	sc := bufio.NewScanner(rec.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "slotfare_http_") {
			continue
		}
		series++
		labels := parseLabels(t, line)
		if m := labels["method"]; !okMethod[m] {
			t.Fatalf("method label %q in %s", m, line)
		}
		if r := labels["route"]; !routes[r] {
			t.Fatalf("route label %q is not a registered pattern: %s", r, line)
		}
	}
	// Methods x routes x statuses actually seen is far below this; 3,000
	// requests with unbounded labels make thousands of series.
	if series > 600 {
		t.Fatalf("%d slotfare_http_ series after 3000 random requests, want a bounded set", series)
	}
}

// parseLabels reads the {k="v",...} of one exposition line.
func parseLabels(t *testing.T, line string) map[string]string {
	t.Helper()
	open, end := strings.IndexByte(line, '{'), strings.LastIndexByte(line, '}')
	out := map[string]string{}
	if open < 0 || end < open {
		return out
	}
	for _, kv := range strings.Split(line[open+1:end], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("label %q in %s", kv, line)
		}
		out[k] = strings.Trim(v, `"`)
	}
	return out
}

func TestLabelHelpers(t *testing.T) {
	for in, want := range map[string]string{"GET": "GET", "PATCH": "PATCH", "get": "other", "BREW": "other", "": "other"} {
		if got := methodLabel(in); got != want {
			t.Errorf("methodLabel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[int]string{200: "200", 404: "404", 0: "other", 99: "other", 600: "other", 1000: "other"} {
		if got := statusLabel(in); got != want {
			t.Errorf("statusLabel(%d) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"": "", "held": "held", "no_show": "no_show", "bogus": "other"} {
		if got := transitionLabel(in); got != want {
			t.Errorf("transitionLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMetricsCountEachRequestOnce: each request adds one to its (method,
// route, status) series and one observation to its latency, whichever
// series the requests before it used.
func TestMetricsCountEachRequestOnce(t *testing.T) {
	e, _ := newTestServer(t)
	for range 3 {
		call{"GET", "/healthz", "", "", nil}.run(e)
	}
	for range 2 {
		call{"POST", "/v1/offers", "", `{}`, nil}.run(e) // no key: 401
	}
	call{"POST", "/v1/offers", kAlice, `{"extra":1}`, nil}.run(e) // 400
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	want := map[string]string{
		`slotfare_http_requests_total{method="GET",route="/healthz",status="200"}`:       "3",
		`slotfare_http_requests_total{method="POST",route="/v1/offers",status="401"}`:    "2",
		`slotfare_http_requests_total{method="POST",route="/v1/offers",status="400"}`:    "1",
		`slotfare_http_request_duration_seconds_count{method="GET",route="/healthz"}`:    "3",
		`slotfare_http_request_duration_seconds_count{method="POST",route="/v1/offers"}`: "3",
	}
	got := map[string]string{}
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok {
			got[k] = v
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %s", k, got[k], v)
		}
	}
}

// TestMetricsSayWhichBuildRuns: /metrics carries slotfare_build_info, 1,
// labelled with the version, commit and Go release of the running binary.
func TestMetricsSayWhichBuildRuns(t *testing.T) {
	e, _ := newTestServer(t)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b := slotfare.ThisBuild()
	want := fmt.Sprintf(`slotfare_build_info{goversion=%q,revision=%q,version=%q} 1`, b.GoVersion, b.Revision, b.Version)
	if !strings.Contains(rec.Body.String(), want+"\n") {
		t.Errorf("/metrics lacks %s", want)
	}
}
