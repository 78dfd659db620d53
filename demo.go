package slotfare

import _ "embed" // the demo configuration and trace ship inside the binary

// DemoConfig is the demo configuration `slotfare serve` starts on without
// --config: the ten EU DataGrid resources of seed 004 Table 7.7 with the fare
// classes, rate periods and initial protection levels of Tables 7.6, 7.9 and
// 7.10 and the four demo keys (testdata/demo.json, explained in
// testdata/README.md). Decode it with config.DecodeConfig (booking/config).
//
//go:embed testdata/demo.json
var DemoConfig []byte

// DemoTrace is the workload trace `slotfare simulate` replays unless told
// another: the first 4,961 jobs of the SDSC SP2 log of 1998 from the
// Parallel Workloads Archive (SWF), shipped inside the binary so that the
// simulator runs outside the repository. DemoTraceName is its file name.
//
//go:embed testdata/traces/SDSC-SP2-1998-first4961.swf
var DemoTrace []byte

// DemoTraceName is DemoTrace's file name.
const DemoTraceName = "SDSC-SP2-1998-first4961.swf"

// DemoKey is one demo API key in plaintext, for serve to print. The
// configuration itself stores only its sha256.
type DemoKey struct {
	Key       string // the bearer token, e.g. "demo-alice"
	Role      string // provider, user or billing
	AccountID string
	VO        string // "" for none
}

// DemoKeys are the plaintext keys of DemoConfig (API.md): a provider, a
// billing system and two users in separate accounts and VOs.
var DemoKeys = []DemoKey{
	{Key: "demo-provider", Role: "provider", AccountID: "provider"},
	{Key: "demo-billing", Role: "billing", AccountID: "billing"},
	{Key: "demo-alice", Role: "user", AccountID: "alice", VO: "1"},
	{Key: "demo-bob", Role: "user", AccountID: "bob", VO: "2"},
}
