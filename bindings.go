//go:build bindings

package main

// `wails build` runs the app once, built with the tag bindings, to generate
// the frontend's bindings: wails.Run then writes them and exits. That run
// needs no login shell environment.
func init() { generatingBindings = true }
