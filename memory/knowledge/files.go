package knowledge

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/troupe-dev/troupe/internal/confine"
)

// ErrOutside is matched (with errors.Is) by the error of a path that
// resolves outside the folders of Within.
var ErrOutside = confine.ErrOutside

// A ReadOption changes how File and Folder read files.
type ReadOption func(*reader)

// Within confines File and Folder to the folders dirs: a path, and every
// file of a folder, is resolved (symbolic links included) and read only
// when it is inside one of them; otherwise the source fails with an error
// naming the path, where it leads and the allowed folders. A relative path
// is relative to the first folder.
func Within(dirs ...string) ReadOption {
	return func(r *reader) { r.within = dirs }
}

// A reader reads the files of File and Folder.
type reader struct {
	within []string
	dirs   *confine.Dirs // set when within is
}

func newReader(opts []ReadOption) (*reader, error) {
	r := &reader{}
	for _, o := range opts {
		o(r)
	}
	if len(r.within) > 0 {
		dirs, err := confine.New(r.within[0], r.within[1:]...)
		if err != nil {
			return nil, fmt.Errorf("knowledge: %w", err)
		}
		r.dirs = dirs
	}
	return r, nil
}

// File is a source reading one file: .txt and .md as they are, .json
// flattened to "path.to[0].key: value" lines (keys sorted), .csv as one
// "column: value, ..." line per row under its header row. The document is
// named path.
func File(path string, opts ...ReadOption) Source {
	return SourceFunc(func(ctx context.Context) ([]Document, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := newReader(opts)
		if err != nil {
			return nil, err
		}
		d, err := r.read(path)
		if err != nil {
			return nil, err
		}
		return []Document{d}, nil
	})
}

// Folder is a source reading every file with a supported extension under
// dir, recursively, in lexical order, skipping names that start with a dot
// and symbolic links inside the folder. Each document is named by dir
// joined with the file's path inside it.
func Folder(dir string, opts ...ReadOption) Source {
	return SourceFunc(func(ctx context.Context) ([]Document, error) {
		r, err := newReader(opts)
		if err != nil {
			return nil, err
		}
		walk := dir
		if r.dirs != nil {
			if walk, err = r.dirs.Resolve(dir); err != nil {
				return nil, fmt.Errorf("knowledge: folder: %w", err)
			}
		}
		var docs []Document
		err = filepath.WalkDir(walk, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if path != walk && strings.HasPrefix(e.Name(), ".") {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !e.Type().IsRegular() || !supported(path) {
				return nil
			}
			rel, err := filepath.Rel(walk, path)
			if err != nil {
				return err
			}
			d, err := r.read(filepath.Join(dir, rel))
			if err != nil {
				return err
			}
			docs = append(docs, d)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("knowledge: folder %s: %w", dir, err)
		}
		return docs, nil
	})
}

// read reads one file as a document named path.
func (r *reader) read(path string) (Document, error) {
	if !supported(path) {
		return Document{}, fmt.Errorf("knowledge: %s: unsupported file type; supported: %s", path, strings.Join(Extensions, ", "))
	}
	var data []byte
	var err error
	if r.dirs != nil {
		data, err = r.dirs.ReadFile(path, MaxFileSize)
	} else {
		data, err = readLimited(path)
	}
	if err != nil {
		return Document{}, fmt.Errorf("knowledge: %w", err)
	}
	text, err := documentText(path, data)
	if err != nil {
		return Document{}, fmt.Errorf("knowledge: %s: %w", path, err)
	}
	return Document{Name: path, Text: text}, nil
}

// readLimited reads the regular file at path, at most MaxFileSize bytes.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, MaxFileSize)
	}
	return data, nil
}
