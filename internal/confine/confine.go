// Package confine reads files only from inside a set of allowed folders.
//
// A definition names files (crew declarations, knowledge sources) that end
// up in prompts, so a path must not reach outside the folders its host
// allowed: not through "..", not as an absolute path, and not through a
// symbolic link. Every path is resolved (symbolic links included) and
// checked before it is opened, and the open itself goes through an
// [os.Root], so a link swapped in after the check cannot lead outside
// either.
package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is matched (with errors.Is) by the error of a path that
// resolves outside every allowed folder.
var ErrOutside = errors.New("outside the allowed folders")

// An OutsideError reports a path that resolves outside every allowed folder.
type OutsideError struct {
	// Path is the path as given.
	Path string
	// Resolved is the absolute path it leads to, symbolic links resolved.
	Resolved string
	// Dirs are the allowed folders.
	Dirs []string
}

// Error names the path, where it leads and the allowed folders.
func (e *OutsideError) Error() string {
	if e.Resolved != "" && e.Resolved != e.Path {
		return fmt.Sprintf("%s resolves to %s, %s (%s)", e.Path, e.Resolved, ErrOutside, strings.Join(e.Dirs, ", "))
	}
	return fmt.Sprintf("%s is %s (%s)", e.Path, ErrOutside, strings.Join(e.Dirs, ", "))
}

// Is reports whether target is ErrOutside.
func (e *OutsideError) Is(target error) bool { return target == ErrOutside }

// A dir is an allowed folder: as given (made absolute) and with its
// symbolic links resolved.
type dir struct{ abs, real string }

// Dirs is a set of allowed folders. The first is the base that relative
// paths are resolved against. A Dirs is safe for concurrent use.
type Dirs struct {
	dirs []dir
}

// New returns the folders base and more, base first. A folder that does
// not exist (yet) is allowed as it is written.
func New(base string, more ...string) (*Dirs, error) {
	d := &Dirs{}
	for _, p := range append([]string{base}, more...) {
		if p == "" {
			return nil, errors.New("confine: an allowed folder is empty")
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("confine: %w", err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			real = abs
		}
		d.dirs = append(d.dirs, dir{abs: abs, real: real})
	}
	return d, nil
}

// Base is the folder relative paths are resolved against, made absolute.
func (d *Dirs) Base() string { return d.dirs[0].abs }

// List returns the allowed folders, made absolute, base first.
func (d *Dirs) List() []string {
	out := make([]string, len(d.dirs))
	for i, x := range d.dirs {
		out[i] = x.abs
	}
	return out
}

// Resolve returns the absolute path that path leads to, with every
// symbolic link resolved, or an *OutsideError when it is outside every
// allowed folder. A relative path is relative to the base. A path that does
// not exist resolves as far as it exists, so that reading it reports it
// missing only when it would be inside.
func (d *Dirs) Resolve(path string) (string, error) {
	real, _, _, err := d.locate(path)
	return real, err
}

// locate resolves path and returns the allowed folder (resolved) it is in
// and its name relative to that folder.
func (d *Dirs) locate(path string) (real, root, rel string, err error) {
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(d.dirs[0].abs, p)
	}
	real, err = resolve(filepath.Clean(p))
	if err != nil {
		return "", "", "", fmt.Errorf("confine: %w", err)
	}
	for _, x := range d.dirs {
		if r, ok := within(x.real, real); ok {
			return real, x.real, r, nil
		}
	}
	return "", "", "", &OutsideError{Path: path, Resolved: real, Dirs: d.List()}
}

// resolve is filepath.EvalSymlinks for a path that may not exist: the part
// that exists is resolved and the rest appended as it is.
func resolve(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	head, err := resolve(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(head, filepath.Base(p)), nil
}

// within returns path relative to root when path is root or inside it.
func within(root, path string) (string, bool) {
	r, err := filepath.Rel(root, path)
	if err != nil || filepath.IsAbs(r) || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return r, true
}

// Open opens the file at path for reading when it resolves inside an
// allowed folder.
func (d *Dirs) Open(path string) (*os.File, error) {
	_, root, rel, err := d.locate(path)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		return nil, relabel(err, path)
	}
	return f, nil
}

// Stat describes the file at path when it resolves inside an allowed
// folder.
func (d *Dirs) Stat(path string) (fs.FileInfo, error) {
	_, root, rel, err := d.locate(path)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st, err := r.Stat(rel)
	if err != nil {
		return nil, relabel(err, path)
	}
	return st, nil
}

// ReadFile reads the regular file at path, at most limit bytes (no limit
// when limit <= 0), when it resolves inside an allowed folder.
func (d *Dirs) ReadFile(path string, limit int64) ([]byte, error) {
	f, err := d.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, relabel(err, path)
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", limit)}
	}
	return data, nil
}

// relabel names path, as the caller wrote it, in a *fs.PathError from a
// root, which names the file relative to the root.
func relabel(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}
