package desk

// Unrecorded returns how many posted messages the desk keeps whose ts it
// could not record yet (the posted map), for the tests that it is pruned.
func (k *Desk) Unrecorded() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.posted)
}
