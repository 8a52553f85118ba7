//go:build !nogui

package main

import (
	"embed"
	"io/fs"
)

// assets is the built frontend the window shows.
//
//go:embed all:frontend/dist
var assets embed.FS

// uiAssets is the same frontend for the browser UI at /ui/: the contents
// of frontend/dist.
var uiAssets = mustSub(assets, "frontend/dist")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // dir is a constant that go:embed already checked
	}
	return sub
}
