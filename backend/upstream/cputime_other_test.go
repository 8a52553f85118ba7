//go:build !unix

package upstream

import "time"

// processCPU is unknown here: the benchmarks report 0 CPU-ns/op.
func processCPU() time.Duration { return 0 }
