// Package bundle installs MCP Bundles (.mcpb files, docs/bundles.md): a zip
// with manifest.json and a node, python, uv or binary server. Read checks a
// bundle's signature, its zip's entries against the caps and its manifest
// against the manifest schema of its version; Installer unpacks it under
// the data dir and stores it as a stdio server, its sensitive user_config
// values in the keychain.
package bundle

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// ErrInvalid is wrapped by every error about a bundle's content: a bad
// zip, an entry past a cap or outside the bundle, a bad manifest, a bad
// signature, a user_config answer that does not fit.
var ErrInvalid = errors.New("invalid bundle")

// Caps (docs/limits.md, "Bundles"). The file and unpacked-size caps are
// the bundleMaxMB setting; the others are fixed.
const (
	// DefaultMaxMB bounds the .mcpb file and the sum of its entries'
	// unpacked sizes (the bundleMaxMB setting).
	DefaultMaxMB = 512
	// MaxEntries bounds a bundle's zip entries (files and folders).
	MaxEntries = 20000
	// MaxRatio bounds an entry's unpacked size over its packed size, for
	// entries past ratioFloor bytes: past it, the entry is a zip bomb's.
	MaxRatio = 200
	// ratioFloor: small entries (a file of a few spaces) may compress far
	// better than MaxRatio and harm nobody.
	ratioFloor = 1 << 20
	// MaxManifestBytes bounds manifest.json.
	MaxManifestBytes = 1 << 20
	// MaxSignatureBytes bounds the PKCS#7 signature block at the file's end.
	MaxSignatureBytes = 1 << 20
)

// Limits are the caps a bundle is read and unpacked under.
type Limits struct {
	MaxBytes int64 // the .mcpb file, and the sum of its entries unpacked
}

// DefaultLimits are the caps with the setting at its default.
func DefaultLimits() Limits { return Limits{MaxBytes: DefaultMaxMB << 20} }

func (l Limits) maxBytes() int64 {
	if l.MaxBytes <= 0 {
		return DefaultMaxMB << 20
	}
	return l.MaxBytes
}

// Bundle is a read and checked .mcpb file.
type Bundle struct {
	Manifest  Manifest
	Signature Signature
	zip       *zip.Reader
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// ReadFile reads the .mcpb file at name under lim.
func ReadFile(name string, lim Limits) (*Bundle, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open bundle: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open bundle: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, invalid("%s is not a regular file", name)
	}
	data, err := readCapped(f, lim.maxBytes())
	if err != nil {
		return nil, err
	}
	return Read(data, lim)
}

// readCapped reads r whole, refusing more than max bytes.
func readCapped(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("read bundle: %w", err)
	}
	if int64(len(data)) > max {
		return nil, invalid("the file is over %d MB, the cap (setting bundleMaxMB)", max>>20)
	}
	return data, nil
}

// Read checks data, a whole .mcpb file: its signature (a signature that
// does not verify is refused), its zip's entries against the caps and its
// manifest. Nothing is written.
func Read(data []byte, lim Limits) (*Bundle, error) {
	if int64(len(data)) > lim.maxBytes() {
		return nil, invalid("the file is over %d MB, the cap (setting bundleMaxMB)", lim.maxBytes()>>20)
	}
	content, sig, err := verifySignature(data)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(content), int64(len(content)))
	if err != nil {
		return nil, invalid("not a zip file: %v", err)
	}
	if err := checkEntries(zr, lim); err != nil {
		return nil, err
	}
	m, err := readManifest(zr)
	if err != nil {
		return nil, err
	}
	return &Bundle{Manifest: m, Signature: sig, zip: zr}, nil
}

// checkEntries refuses a zip whose entries leave the bundle's folder
// (absolute paths, "..", backslashes, drive letters), are links or devices,
// or pass a cap: their number, their sum unpacked, one entry's ratio.
func checkEntries(zr *zip.Reader, lim Limits) error {
	if len(zr.File) > MaxEntries {
		return invalid("%d zip entries, over the cap of %d (MaxEntries)", len(zr.File), MaxEntries)
	}
	var total uint64
	seen := map[string]bool{}
	for _, f := range zr.File {
		name, err := entryPath(f.Name)
		if err != nil {
			return err
		}
		mode := f.Mode()
		if mode&os.ModeSymlink != 0 {
			return invalid("zip entry %q is a symbolic link; a bundle holds only files and folders", f.Name)
		}
		if !mode.IsRegular() && !mode.IsDir() {
			return invalid("zip entry %q is not a file or a folder (%v)", f.Name, mode.Type())
		}
		if seen[strings.ToLower(name)] {
			return invalid("zip entry %q appears twice", f.Name)
		}
		seen[strings.ToLower(name)] = true
		total += f.UncompressedSize64
		if total > uint64(lim.maxBytes()) {
			return invalid("the entries unpack to over %d MB, the cap (setting bundleMaxMB)", lim.maxBytes()>>20)
		}
		if f.UncompressedSize64 > ratioFloor && f.UncompressedSize64 > uint64(MaxRatio)*max(f.CompressedSize64, 1) {
			return invalid("zip entry %q unpacks %d bytes from %d, past the compression ratio cap of %d (MaxRatio): a zip bomb",
				f.Name, f.UncompressedSize64, f.CompressedSize64, MaxRatio)
		}
	}
	return nil
}

// entryPath is a zip entry's name as a clean relative slash path, or an
// error when it would land outside the bundle's folder.
func entryPath(name string) (string, error) {
	bad := func(why string) error { return invalid("zip entry %q %s", name, why) }
	switch {
	case name == "":
		return "", bad("has no name")
	case strings.ContainsAny(name, "\\\x00"):
		return "", bad("has a backslash or a NUL in its path")
	case strings.HasPrefix(name, "/"):
		return "", bad("has an absolute path")
	case len(name) >= 2 && name[1] == ':':
		return "", bad("has a drive letter")
	}
	for _, part := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if part == ".." {
			return "", bad("leaves the bundle's folder (..)")
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", bad("names the bundle's folder itself")
	}
	return clean, nil
}
