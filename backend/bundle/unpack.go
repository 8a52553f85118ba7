package bundle

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Unpack writes b's entries into dir, which must not exist yet: into a
// sibling temporary folder first, renamed into place once whole, so a
// failure leaves nothing behind. The caps are held against the bytes
// actually inflated, not the sizes the zip declares.
func (b *Bundle) Unpack(dir string, lim Limits) error {
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("unpack bundle: %s already exists", dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("unpack bundle: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".unpack-*")
	if err != nil {
		return fmt.Errorf("unpack bundle: %w", err)
	}
	if err := b.unpackInto(tmp, lim); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("unpack bundle: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("unpack bundle: %w", err)
	}
	return nil
}

func (b *Bundle) unpackInto(root string, lim Limits) error {
	budget := lim.maxBytes()
	for _, f := range b.zip.File {
		name, err := entryPath(f.Name) // checked by Read; checked again where it is used
		if err != nil {
			return err
		}
		local := filepath.FromSlash(name)
		if !filepath.IsLocal(local) {
			return invalid("zip entry %q leaves the bundle's folder", f.Name)
		}
		target := filepath.Join(root, local)
		if f.Mode().IsDir() {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("unpack bundle: %w", err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("unpack bundle: %w", err)
		}
		n, err := writeEntry(f, target, budget)
		if err != nil {
			return err
		}
		budget -= n
	}
	return nil
}

// writeEntry inflates f into a new file at target, at most its declared
// size and at most budget bytes, and returns how many it wrote.
func writeEntry(f *zip.File, target string, budget int64) (int64, error) {
	mode := os.FileMode(0o644)
	if f.Mode().Perm()&0o111 != 0 {
		mode = 0o755
	}
	rc, err := f.Open()
	if err != nil {
		return 0, invalid("zip entry %q: %v", f.Name, err)
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return 0, fmt.Errorf("unpack bundle: %w", err)
	}
	limit := min(int64(f.UncompressedSize64), budget)
	n, err := io.Copy(out, io.LimitReader(rc, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, invalid("zip entry %q: %v", f.Name, err)
	}
	if n > limit {
		if limit == budget {
			return n, invalid("the entries inflate past the unpacked-size cap (setting bundleMaxMB)")
		}
		return n, invalid("zip entry %q inflates past the size it declares (%d bytes)", f.Name, f.UncompressedSize64)
	}
	return n, nil
}
