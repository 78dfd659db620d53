// Package swf reads workload logs in the Standard Workload Format of the
// Parallel Workloads Archive (one job a line, 18 whitespace-separated
// fields, -1 for unknown, header comments starting with ';'). slotfare uses
// them to replay reservation requests (calendar benchmarks), to cut
// best-effort queue snapshots (delay premium) and as job-duration history
// (forecast).
package swf

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Job is one record of a workload log. Times are seconds; fields the log
// does not know are -1.
type Job struct {
	Number       int64   // 1: job number
	Submit       int64   // 2: submit time, seconds from the log's start
	Wait         int64   // 3: wait time
	Run          int64   // 4: run time
	Procs        int64   // 5: allocated processors
	AvgCPU       float64 // 6: average CPU time used
	Memory       float64 // 7: used memory, KB per processor
	ReqProcs     int64   // 8: requested processors
	ReqTime      int64   // 9: requested time (user's runtime estimate)
	ReqMemory    float64 // 10: requested memory
	Status       int64   // 11: 1 completed, 0 failed, 5 cancelled
	User         int64   // 12
	Group        int64   // 13
	Executable   int64   // 14
	Queue        int64   // 15
	Partition    int64   // 16
	PrecedingJob int64   // 17
	ThinkTime    int64   // 18
}

// Nodes is the job's width: allocated processors, or requested processors
// when the allocation is unknown; -1 when neither is known.
func (j Job) Nodes() int64 {
	if j.Procs > 0 {
		return j.Procs
	}
	if j.Procs == -1 && j.ReqProcs > 0 {
		return j.ReqProcs
	}
	return -1
}

// Header is what the log's leading comments say about the machine.
type Header struct {
	MaxProcs      int64             // MaxProcs, or MaxNodes when MaxProcs is absent; 0 when neither
	MaxNodes      int64             // MaxNodes; 0 when absent
	UnixStartTime int64             // UnixStartTime; 0 when absent
	TimeZone      string            // TimeZoneString, an IANA name; "" when absent
	Fields        map[string]string // every "; Key: value" comment, as written
}

// Log is a parsed workload log, records in file order.
type Log struct {
	Header Header
	Jobs   []Job
}

// Read parses a whole log. A malformed record is an error naming its line.
func Read(r io.Reader) (*Log, error) {
	l := &Log{Header: Header{Fields: map[string]string{}}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if text[0] == ';' {
			l.Header.parseComment(text[1:])
			continue
		}
		j, err := parseJob(text)
		if err != nil {
			return nil, fmt.Errorf("swf: line %d: %w", line, err)
		}
		l.Jobs = append(l.Jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("swf: %w", err)
	}
	if l.Header.MaxProcs == 0 {
		l.Header.MaxProcs = l.Header.MaxNodes
	}
	return l, nil
}

func (h *Header) parseComment(c string) {
	key, value, ok := strings.Cut(c, ":")
	if !ok {
		return
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	// Prose comments ("; Note that ...") are not header fields: keys are one word.
	if key == "" || strings.ContainsAny(key, " \t") {
		return
	}
	if _, seen := h.Fields[key]; !seen {
		h.Fields[key] = value
	}
	n, err := strconv.ParseInt(strings.Fields(value + " x")[0], 10, 64)
	switch key {
	case "MaxProcs":
		if err == nil {
			h.MaxProcs = n
		}
	case "MaxNodes":
		if err == nil {
			h.MaxNodes = n
		}
	case "UnixStartTime":
		if err == nil {
			h.UnixStartTime = n
		}
	case "TimeZoneString":
		h.TimeZone = value
	}
}

func parseJob(text string) (Job, error) {
	f := strings.Fields(text)
	if len(f) != 18 {
		return Job{}, fmt.Errorf("want 18 fields, got %d", len(f))
	}
	var v [18]float64
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return Job{}, fmt.Errorf("field %d: %q is not a number", i+1, s)
		}
		v[i] = x
	}
	in := func(i int) int64 { return int64(math.Floor(v[i])) }
	return Job{
		Number: in(0), Submit: in(1), Wait: in(2), Run: in(3), Procs: in(4),
		AvgCPU: v[5], Memory: v[6], ReqProcs: in(7), ReqTime: in(8), ReqMemory: v[9],
		Status: in(10), User: in(11), Group: in(12), Executable: in(13), Queue: in(14),
		Partition: in(15), PrecedingJob: in(16), ThinkTime: in(17),
	}, nil
}
