package embedded

// WriteIDsKept is how many applied WriteIDs s remembers, for the tests of
// its bound.
func (s *Records) WriteIDsKept() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied.len()
}

// KeysKept is how many keys m holds, for the tests of its bound.
func (m *Idem) KeysKept() int { return m.Len() }
