// Package recordlog frames the records of slotfare's append-only files (the
// ledger's file store; the old booking log store, which store convert reads)
// so that damage is told apart from a crash. Each record is one line: eight
// lowercase hex digits of the CRC-32C of the payload, a space, the payload
// (JSON, which never holds a newline or a NUL byte) and a newline. The file
// stays readable with any text tool; the checksum catches a flipped byte
// that still decodes.
//
// A crash during an append can leave only an incomplete end: bytes without a
// final newline, or a last line that failed its check and holds NUL bytes
// (blocks the file system allocated but never wrote read as zeros). That
// torn tail was never acknowledged and may be cut off. Anything else that
// fails (a bad checksum or an undecodable record followed by further lines,
// a bad last line without zeros) is damage: the stores refuse to open and
// leave the file as it is, because cutting there would delete acknowledged
// records.
//
// Lines without a checksum are the format written before checksums: they
// are accepted only if they decode, and only before the first checksummed
// line (new records are always checksummed, so a file is an old prefix
// followed by new lines). Such a line has no protection against a flipped
// byte that still decodes.
package recordlog

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// prefixLen is the checksum's hex digits and the space after them.
const prefixLen = 9

// Append appends payload to dst framed as one record line. payload must not
// hold a newline.
func Append(dst, payload []byte) []byte {
	return append(Seal(dst, payload), '\n')
}

// Seal appends payload to dst behind its checksum, without a newline: the
// form of a value in a key-value store (boltstore).
func Seal(dst, payload []byte) []byte {
	var sum [4]byte
	c := crc32.Checksum(payload, castagnoli)
	sum[0], sum[1], sum[2], sum[3] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
	dst = hex.AppendEncode(dst, sum[:])
	dst = append(dst, ' ')
	return append(dst, payload...)
}

// Reserve appends room for a checksum to dst: a caller that appends the
// payload after it and then calls SealAt seals without copying the payload.
func Reserve(dst []byte) []byte { return append(dst, "00000000 "...) }

// SealAt writes the checksum of b[at+9:] in the room Reserve made at at,
// so that b[at:] is Seal(nil, b[at+9:]).
func SealAt(b []byte, at int) {
	c := crc32.Checksum(b[at+prefixLen:], castagnoli)
	sum := [4]byte{byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c)}
	hex.Encode(b[at:at+prefixLen-1], sum[:])
}

// Unseal returns the payload of a sealed value, or says what is wrong with
// it. A value that starts with '{' or '[' was stored before checksums and
// is returned as it is (the caller's decoding is its only check).
func Unseal(v []byte) ([]byte, error) {
	if len(v) > 0 && (v[0] == '{' || v[0] == '[') {
		return v, nil
	}
	if len(v) < prefixLen || v[prefixLen-1] != ' ' {
		return nil, errors.New("no checksum (expected 8 hex digits and a space)")
	}
	var sum [4]byte
	if _, err := hex.Decode(sum[:], v[:prefixLen-1]); err != nil {
		return nil, errors.New("no checksum (expected 8 hex digits and a space)")
	}
	payload := v[prefixLen:]
	want := uint32(sum[0])<<24 | uint32(sum[1])<<16 | uint32(sum[2])<<8 | uint32(sum[3])
	if got := crc32.Checksum(payload, castagnoli); got != want {
		return nil, fmt.Errorf("checksum mismatch (stored %08x, payload has %08x)", want, got)
	}
	return payload, nil
}

// Damage is a record that fails its check with intact records after it (or
// a failing last line that is not a torn write): what a crash cannot
// produce. It names the file, the byte offset where the damaged record
// starts and what is wrong. The stores return it (in their error's chain)
// to refuse to open; boltstore fills Where instead of Line.
type Damage struct {
	File   string
	Offset int64  // where the damaged record starts; -1 if unknown
	Line   int    // 1-based line of a log; 0 in a key-value store
	Where  string // which record of a key-value store ("bucket/key")
	Reason string
}

func (d *Damage) Error() string {
	var at []string
	if d.Offset >= 0 {
		at = append(at, fmt.Sprintf("byte offset %d", d.Offset))
	}
	if d.Line > 0 {
		at = append(at, fmt.Sprintf("line %d", d.Line))
	}
	if d.Where != "" {
		at = append(at, d.Where)
	}
	if len(at) == 0 {
		return fmt.Sprintf("%s is damaged: %s", d.File, d.Reason)
	}
	return fmt.Sprintf("%s is damaged at %s: %s", d.File, strings.Join(at, ", "), d.Reason)
}

// Report is what a scan found: what is intact, the torn tail, the damage.
type Report struct {
	File    string
	Records int   // intact records before any damage
	Legacy  int   // of Records, lines without a checksum (the older format)
	Intact  int64 // bytes of those records: where the torn tail or the damage starts
	Torn    int64 // bytes of a torn tail after Intact, 0 if none
	Size    int64 // bytes read
	Damage  *Damage
	// After the damage: how many more lines there are and how many of them
	// pass their check (what cutting at the damage would throw away).
	LinesAfter, IntactAfter int
}

// Clean reports whether the file has neither damage nor a torn tail.
func (r Report) Clean() bool { return r.Damage == nil && r.Torn == 0 }

// Scan reads the records of file from rd and calls decode with each payload
// that passes its checksum (or, for a line without one, to see whether it
// decodes); an error from decode makes the record damaged. After damage it
// reads on only to count the lines after it, checking their checksums and
// that they are JSON without calling decode, so decode may apply each
// record as it goes, but a caller must discard what it applied when
// Report.Damage is set. Its error is a read error only.
func Scan(file string, rd io.Reader, decode func(payload []byte) error) (Report, error) {
	r := bufio.NewReaderSize(rd, 1<<20)
	rep := Report{File: file}
	var off int64
	checksummed := false
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return rep, err
		}
		start := off
		off += int64(len(line))
		rep.Size = off
		if len(line) == 0 {
			return rep, nil
		}
		if line[len(line)-1] != '\n' { // no newline: the end of the file
			if rep.Damage == nil {
				rep.Torn = int64(len(line))
			}
			return rep, nil
		}
		if rep.Damage != nil {
			reason := check(line[:len(line)-1], &checksummed, isJSON)
			rep.LinesAfter++
			if reason == "" {
				rep.IntactAfter++
			}
			continue
		}
		reason := check(line[:len(line)-1], &checksummed, decode)
		if reason == "" {
			rep.Records++
			rep.Intact = off
			if line[0] == '{' || line[0] == '[' {
				rep.Legacy++
			}
			continue
		}
		if bytes.IndexByte(line, 0) >= 0 {
			// A torn write if nothing complete follows it.
			rest, err := io.ReadAll(r)
			if err != nil {
				return rep, err
			}
			rep.Size = off + int64(len(rest))
			if bytes.IndexByte(rest, '\n') < 0 {
				rep.Torn = rep.Size - start
				return rep, nil
			}
			r = bufio.NewReader(bytes.NewReader(rest))
		}
		rep.Damage = &Damage{File: file, Offset: start, Line: n, Reason: reason}
	}
}

func isJSON(p []byte) error {
	if !json.Valid(p) {
		return errors.New("not JSON")
	}
	return nil
}

// check says what is wrong with one line (without its newline), "" if
// nothing.
func check(line []byte, checksummed *bool, decode func([]byte) error) string {
	if len(line) > 0 && (line[0] == '{' || line[0] == '[') && !*checksummed {
		if err := decode(line); err != nil {
			return "a record without a checksum (older format) that does not decode: " + err.Error()
		}
		return ""
	}
	if len(line) > 0 && (line[0] == '{' || line[0] == '[') {
		return "a record without a checksum after checksummed ones"
	}
	payload, err := Unseal(line)
	if err != nil {
		return err.Error()
	}
	*checksummed = true
	if err := decode(payload); err != nil {
		return "the checksum holds but the record does not decode: " + err.Error()
	}
	return ""
}
