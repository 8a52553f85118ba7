package store

import "time"

// processCPU is not measured on Windows; the benchmarks then report no
// cpu-ns/row.
func processCPU() time.Duration { return 0 }
