package filelimit

import (
	"fmt"
	"io"
	"io/fs"
)

// ReadFile reads a file the router is about to parse. It is opened without
// blocking (a FIFO is opened at once instead of waiting for a writer) and
// checked with fstat before any read: a FIFO, a device, a socket or a
// directory is refused, and so is a file over MaxBytes, before it is read.
// A missing file is os.Open's error (it wraps fs.ErrNotExist); a refusal
// says "the <What>": callers name the path.
func (l Limits) ReadFile(path string) ([]byte, fs.FileInfo, error) {
	l = l.WithDefaults()
	f, err := openNoBlock(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, &Error{Cap: ErrNotRegular, Message: fmt.Sprintf("the %s is %s, not a regular file: it is read from regular files only", l.What, kind(fi.Mode()))}
	}
	if fi.Size() > l.MaxBytes {
		return nil, fi, l.tooLarge("", fi.Size())
	}
	data, err := l.ReadAll(f, "")
	return data, fi, err
}

// ReadAll reads r (stdin, a file opened elsewhere) up to MaxBytes: one
// byte more is an error naming the cap (and name, if given).
func (l Limits) ReadAll(r io.Reader, name string) ([]byte, error) {
	l = l.WithDefaults()
	data, err := io.ReadAll(io.LimitReader(r, l.MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > l.MaxBytes {
		return nil, l.tooLarge(name, -1)
	}
	return data, nil
}

// CheckSize refuses data over MaxBytes (text given in a call, not read
// from a file).
func (l Limits) CheckSize(n int) error {
	l = l.WithDefaults()
	if int64(n) > l.MaxBytes {
		return l.tooLarge("", int64(n))
	}
	return nil
}

func (l Limits) tooLarge(name string, size int64) *Error {
	what := "the " + l.What
	if name != "" {
		what = name
	}
	if size < 0 {
		return refuse(ErrTooLarge, 0, 0, "%s is larger than %s, the size cap of a %s", what, bytesText(l.MaxBytes), l.What)
	}
	return refuse(ErrTooLarge, 0, 0, "%s is %d bytes, over %s, the size cap of a %s", what, size, bytesText(l.MaxBytes), l.What)
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
