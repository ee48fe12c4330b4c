package flow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/troupe-dev/troupe/internal/confine"
)

// ErrOutsideFileRoots is matched (with errors.Is) by the error of a file a
// definition names (a crew from_declaration, a knowledge_sources path)
// that resolves outside the folders it may read from.
var ErrOutsideFileRoots = confine.ErrOutside

// WithFileRoots lets definitions read files from dirs too. The files a
// definition names, crew from_declaration folders and knowledge_sources
// files and folders, resolve against the definition's folder (the folder
// of its file; the working directory for a definition parsed from memory
// or built in Go) and, by default, must stay inside it: "..", absolute
// paths and symbolic links that lead elsewhere are refused with
// ErrOutsideFileRoots. Relative dirs are made absolute when the option is
// applied.
func WithFileRoots(dirs ...string) Option {
	return func(e *Engine) {
		for _, d := range dirs {
			if abs, err := filepath.Abs(d); err == nil {
				d = abs
			}
			e.fileRoots = append(e.fileRoots, d)
		}
	}
}

// fileBase is the folder a definition's relative file paths resolve
// against, and the first folder it may read from.
func fileBase(def *Definition) (string, error) {
	if def.Dir != "" {
		return def.Dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("flow: the working directory: %w", err)
	}
	return wd, nil
}

// fileRootsHint adds the way out to the error of a file outside the
// allowed folders.
func fileRootsHint(err error) error {
	if errors.Is(err, confine.ErrOutside) {
		return fmt.Errorf("%w; move it into the flow's folder, or allow its folder with flow.WithFileRoots (troupe run --allow-path DIR)", err)
	}
	return err
}
