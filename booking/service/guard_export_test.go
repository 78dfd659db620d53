package service

// Guarded reports whether a service admits and stores a hold, and checks
// and stores a commit, in one guarded step each (guardedWriter).
func (s *Service) Guarded() bool { return s.guard != nil }
