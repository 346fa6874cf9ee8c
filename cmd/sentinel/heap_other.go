//go:build !linux

package main

// prepareHeap does nothing outside Linux: transparent huge pages and their advice are Linux's.
func prepareHeap() {}
