//go:build !linux

package proxy

// lowerPriority does nothing where threads have no priority of their own to lower.
func lowerPriority() {}
