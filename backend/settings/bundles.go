package settings

import (
	"context"
	"sort"
	"strconv"
)

// .mcpb bundles' settings (backend/bundle, docs/bundles.md).
const (
	KeyBundleMaxMB = "bundleMaxMB" // the .mcpb file, and its entries unpacked, in MB
)

// DefaultBundleMaxMB bounds a bundle file and its unpacked size.
const DefaultBundleMaxMB = 512

func init() {
	defs = append(defs,
		Def{Key: KeyBundleMaxMB, Default: strconv.Itoa(DefaultBundleMaxMB), Allowed: "a whole number of megabytes from 1 to 8192",
			Help: "the largest .mcpb bundle file installed, and the most its entries may unpack to", check: intRange(1, 8192)},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// BundleMaxBytes bounds a .mcpb bundle file and its unpacked size.
func (s *Settings) BundleMaxBytes(ctx context.Context) int64 {
	return int64(s.validInt(ctx, KeyBundleMaxMB)) << 20
}
