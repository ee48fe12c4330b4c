package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxFileBytes bounds the size of a SKILL.md that Load reads.
const MaxFileBytes = 4 << 20

// Load reads and checks the skill at path: a skill's folder or, as the
// reference validator's command line takes it, its SKILL.md. In [Spec]
// mode a lowercase skill.md is read when there is no SKILL.md, as the
// reference validator does; CrewAI reads SKILL.md only. The skill is nil
// when the file could not be read or split; otherwise see [Parse].
func Load(path string, mode Mode, opts ...Option) (*Skill, Problems) {
	dir, file, prob := locate(path, mode)
	if prob != "" {
		return nil, Problems{{File: path, Offset: -1, Severity: Error, Message: prob}}
	}
	data, err := readCapped(file, MaxFileBytes)
	if err != nil {
		return nil, Problems{{File: file, Offset: -1, Severity: Error, Message: err.Error()}}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	s, probs := Parse(data, file, filepath.Base(abs), mode, opts...)
	if s != nil {
		s.File, s.Dir = file, abs
	}
	return s, probs
}

// locate finds the skill's folder and its SKILL.md, or says what is
// missing in the reference validator's words.
func locate(path string, mode Mode) (dir, file, problem string) {
	st, err := os.Stat(path)
	if err != nil {
		return "", "", "Path does not exist: " + path
	}
	dir = path
	if !st.IsDir() {
		if !strings.EqualFold(filepath.Base(path), FileName) {
			return "", "", "Not a directory: " + path
		}
		dir = filepath.Dir(path)
	}
	names := []string{FileName}
	if mode == Spec {
		names = append(names, strings.ToLower(FileName))
	}
	for _, n := range names {
		f := filepath.Join(dir, n)
		if exactFile(dir, n) {
			return dir, f, ""
		}
	}
	return "", "", "Missing required file: " + FileName
}

// exactFile reports whether dir holds a regular file (or a link to one)
// named exactly name, also on file systems that ignore case.
func exactFile(dir, name string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() == name {
			st, err := os.Stat(filepath.Join(dir, name))
			return err == nil && st.Mode().IsRegular()
		}
	}
	return false
}

// readCapped reads a file of at most limit bytes.
func readCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}
