// Package dashboard is the provider's dashboard: plain HTML, CSS and
// JavaScript modules embedded in the binary and served by the API at
// /dashboard/. The pages read the provider's reports of the API with a key
// kept in the browser tab (sessionStorage); the server holds no state for
// them. charts.js draws every chart as SVG by hand and is also inlined in
// the simulator's self-contained report (Report).
package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
)

//go:embed static
var files embed.FS

// static is the files under static/, served at /dashboard/.
var static, _ = fs.Sub(files, "static")

// Handler serves the dashboard's files under prefix (which ends in "/"),
// with a content security policy that lets a page load only its own
// files and call only its own origin.
func Handler(prefix string) http.Handler {
	fsrv := http.StripPrefix(prefix, http.FileServerFS(static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		fsrv.ServeHTTP(w, r)
	})
}

var exportRE = regexp.MustCompile(`(?m)^export (function|const) `)

// Report returns the script and the style of the simulator's
// self-contained report: charts.js as a classic script (its exports made
// plain declarations) followed by simreport.js, which draws the JSON
// element with id "summary" into the element with id "charts"; and
// style.css.
func Report() (script, style string) {
	read := func(name string) string {
		b, err := fs.ReadFile(static, name)
		if err != nil {
			panic(err) // embedded at build time
		}
		return string(b)
	}
	return exportRE.ReplaceAllString(read("charts.js"), "$1 ") + "\n" + read("simreport.js"), strings.TrimSpace(read("style.css"))
}
