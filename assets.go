//go:build !nogui

package main

import "embed"

// assets is the built frontend the window shows.
//
//go:embed all:frontend/dist
var assets embed.FS
