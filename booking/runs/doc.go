// Package runs keeps the finished runs of applications on resources that
// job durations are predicted from (issue 13; seed 002,
// 002_eaaa5cef1ad643a1.txt Sec. 4.3): runs posted by providers and users
// (POST /v1/runs) and the completed bookings that named a profile. It owns
// the Run type and the Store port its runs persist on, with three
// implementations passing one contract (booking/internal/runstest): Memory
// here (tests), booking/boltstore/runsbolt in the data directory (serve),
// booking/redisstore.Runs shared by replicas (serve --redis), so a run
// recorded on one replica is in every replica's next prediction. The
// adapters import this package, never the reverse: what decides about
// runs depends on neither bbolt nor go-redis. Each Append keeps the configured Limits in its own step: how
// many runs an account may post on a resource an hour, how many it keeps
// there, and how long a run counts. Predictor reads a bounded window of a
// resource's recent runs from the store and hands them to
// forecast.PredictDuration, which stays a pure function of what it is
// given.
package runs
