package service

import "bytes"

// cursorBytes joins a cursor's parts with NUL, which no part holds.
func cursorBytes(parts ...string) []byte {
	var b []byte
	for i, p := range parts {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, p...)
	}
	return b
}

// cursorParts splits what cursorBytes joined.
func cursorParts(raw []byte) []string {
	var out []string
	for _, p := range bytes.Split(raw, []byte{0}) {
		out = append(out, string(p))
	}
	return out
}
