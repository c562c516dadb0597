//go:build !linux

package web

// lowerPriority does nothing outside Linux (see nice_linux.go).
func lowerPriority(int) {}
