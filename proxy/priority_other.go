//go:build !linux

package proxy

// lowerPriority does nothing where threads have no priority of their own to lower; there is then
// no processor to reserve either.
func lowerPriority() (release func()) { return func() {} }
