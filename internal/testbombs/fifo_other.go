//go:build !unix

package testbombs

import "errors"

// MakeFIFO is not possible here: Windows has no named pipes in the file
// system. Tests skip what needs one.
func MakeFIFO(string) error { return errors.ErrUnsupported }
