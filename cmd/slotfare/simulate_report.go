package main

import (
	"bytes"
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"

	"slotfare/api/dashboard"
)

// simIndex is --out's index.html, one file that needs nothing else: the
// command, the charts of summary.json drawn in the page by the dashboard's
// chart components (inlined with its style), the tables it printed, and
// links to every file it wrote (CSV, PNG, summary.json).
func simIndex(args []string, tables string, files map[string][]byte, currency string) []byte {
	script, style := dashboard.Report()
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>slotfare simulate</title>\n")
	fmt.Fprintf(&b, "<style>\n%s\nmain { max-width: 1000px; }\n</style>\n</head><body><main>\n", style)
	fmt.Fprintf(&b, "<h1>slotfare simulate</h1>\n<p><code>slotfare simulate %s</code></p>\n", html.EscapeString(strings.Join(args, " ")))
	b.WriteString("<div id=\"charts\"><noscript><p class=\"empty\">The charts are drawn by JavaScript; the PNG files below show them too.</p></noscript></div>\n")
	fmt.Fprintf(&b, "<h2>Tables</h2>\n<pre>%s</pre>\n<h2>Files</h2>\n<ul>\n", html.EscapeString(tables))
	for _, n := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", html.EscapeString(n), html.EscapeString(n))
	}
	b.WriteString("</ul>\n")
	// JSON in a script element: "</" written "<\/" cannot close it.
	summary := strings.ReplaceAll(string(files["summary.json"]), "</", `<\/`)
	fmt.Fprintf(&b, "<script type=\"application/json\" id=\"summary\" data-currency=\"%s\">\n%s</script>\n", html.EscapeString(currency), summary)
	fmt.Fprintf(&b, "<script>\n%s</script>\n</main></body></html>\n", script)
	return b.Bytes()
}
