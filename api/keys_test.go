package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAPIKeys: a provider creates a key over HTTP, the secret comes back
// once and works at once; the listing shows names, roles and accounts and
// never a secret or hash; DELETE revokes it at once; the file's keys stay.
func TestAPIKeys(t *testing.T) {
	e, _ := newTestServer(t)
	rec := call{"POST", "/v1/keys", kProv, `{"name":"carol-laptop","role":"user","account_id":"carol","vo":"1"}`, nil}.must(t, e, 201)
	if rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q on the answer with the secret", rec.Header().Get("Cache-Control"))
	}
	var k map[string]any
	json.Unmarshal(rec.Body.Bytes(), &k)
	secret, _ := k["key"].(string)
	if !strings.HasPrefix(secret, "sfk_") || len(secret) < 40 || k["name"] != "carol-laptop" || k["role"] != "user" ||
		k["account_id"] != "carol" || k["vo"] != "1" || k["source"] != "api" || k["created_at"] == nil {
		t.Fatalf("created key %s", rec.Body)
	}
	// The key works at once, as the account and role it was made for.
	call{"GET", "/v1/bookings", secret, "", nil}.must(t, e, 200)
	call{"GET", "/v1/keys", secret, "", nil}.wantProblem(t, e, 403, "")

	list := call{"GET", "/v1/keys", kProv, "", nil}.must(t, e, 200).Body.String()
	if strings.Contains(list, secret) || strings.Contains(list, "sha256") || strings.Contains(list, `"key"`) {
		t.Errorf("the listing shows a secret or a hash: %s", list)
	}
	for _, name := range []string{`"demo-provider"`, `"demo-alice"`, `"carol-laptop"`} {
		if !strings.Contains(list, name) {
			t.Errorf("the listing has no %s: %s", name, list)
		}
	}

	// Refusals, each naming the field.
	call{"POST", "/v1/keys", kProv, `{"name":"carol-laptop","role":"user","account_id":"carol2"}`, nil}.wantProblem(t, e, 409, "name")
	call{"POST", "/v1/keys", kProv, `{"name":"demo-alice","role":"user","account_id":"x"}`, nil}.wantProblem(t, e, 409, "name")
	call{"POST", "/v1/keys", kProv, `{"name":"alice-2","role":"billing","account_id":"alice"}`, nil}.wantProblem(t, e, 409, "role")
	call{"POST", "/v1/keys", kProv, `{"name":"alice-2","role":"user","account_id":"alice","vo":"2"}`, nil}.wantProblem(t, e, 409, "vo")
	call{"POST", "/v1/keys", kProv, `{"name":"x","role":"admin","account_id":"x"}`, nil}.wantProblem(t, e, 422, "role")
	call{"POST", "/v1/keys", kProv, `{"role":"user","account_id":"x"}`, nil}.wantProblem(t, e, 422, "name")
	call{"POST", "/v1/keys", kProv, `{"name":"x","role":"billing","account_id":"x","vo":"1"}`, nil}.wantProblem(t, e, 422, "vo")
	call{"POST", "/v1/keys", kProv, `{"name":"x","role":"user","account_id":"x","secret":"mine"}`, nil}.wantProblem(t, e, 400, "secret")
	call{"POST", "/v1/keys", kAlice, `{"name":"x","role":"provider","account_id":"x"}`, nil}.wantProblem(t, e, 403, "")
	// A second key of an account with the same role and VO: rotation.
	rot := call{"POST", "/v1/keys", kProv, `{"name":"alice-2","role":"user","account_id":"alice","vo":"1"}`, nil}.must(t, e, 201)
	var k2 map[string]any
	json.Unmarshal(rot.Body.Bytes(), &k2)
	call{"GET", "/v1/bookings", k2["key"].(string), "", nil}.must(t, e, 200)

	call{"DELETE", "/v1/keys/demo-alice", kProv, "", nil}.wantProblem(t, e, 409, "", "configuration file")
	call{"DELETE", "/v1/keys/carol-laptop", kProv, "", nil}.must(t, e, 204)
	call{"GET", "/v1/bookings", secret, "", nil}.wantProblem(t, e, 401, "Authorization")
	call{"DELETE", "/v1/keys/carol-laptop", kProv, "", nil}.wantProblem(t, e, 404, "")
	if list := (call{"GET", "/v1/keys", kProv, "", nil}).must(t, e, 200).Body.String(); strings.Contains(list, "carol-laptop") {
		t.Errorf("a revoked key is listed: %s", list)
	}
	call{"GET", "/v1/bookings", kAlice, "", nil}.must(t, e, 200)
}
