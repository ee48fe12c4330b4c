package skill

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/internal/confine"
	"github.com/troupe-dev/troupe/internal/pyjson"
	"github.com/troupe-dev/troupe/llm"
)

// Errors of read_skill_file and run_skill_script, matched with errors.Is.
// Their texts are written for the model, which gets them as the call's
// result.
var (
	ErrNotLoaded    = errors.New("the skill is not loaded")
	ErrAbsolutePath = errors.New("the path must be relative to the skill's folder")
	ErrParentPath   = errors.New("the path must not contain '..'")
	ErrNotText      = errors.New("the file is not a text file")
	ErrTooLarge     = errors.New("the file is over the size limit")
)

// maxListing bounds the files a folder listing shows.
const maxListing = 200

// readTool is read_skill_file: it reads a file of a loaded skill.
type readTool struct{ a *agentSkills }

var _ action.ArgumentChecker = (*readTool)(nil)

// Spec implements action.Tool.
func (t *readTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: t.a.reader,
		Description: "Read a file of a skill you loaded with `" + t.a.loader + "`, such as a reference its instructions point to. " +
			"path is relative to the skill's folder, e.g. references/guide.md; a folder's path (or \".\") lists its files.",
		Parameters: objectSchema([]string{"skill_name", "path"},
			"skill_name", map[string]any{"type": "string", "description": "Name of the loaded skill.", "enum": t.a.readable},
			"path", map[string]any{"type": "string", "description": "File or folder path relative to the skill's folder."},
		)}
}

// ChecksArguments implements action.ArgumentChecker.
func (t *readTool) ChecksArguments() {}

// Call implements action.Tool.
func (t *readTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := decodeArgs(t.a.reader, raw, "skill_name", "path")
	if err != nil {
		return nil, err
	}
	sk, label, err := t.a.loadedSkill(ctx, args.str("skill_name"), t.a.readable)
	if err != nil {
		return nil, err
	}
	text, err := ReadFile(sk, args.str("path"), t.a.opts.MaxReadBytes)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", pyjson.QuoteRepr(label), err)
	}
	return text, nil
}

// loadedSkill finds the skill a tool call names among labels, and checks
// that the run loaded it.
func (a *agentSkills) loadedSkill(ctx context.Context, label string, labels []string) (*Skill, string, error) {
	sk := a.byLabel[label]
	if sk == nil || !contains(labels, label) {
		return nil, "", fmt.Errorf("no skill %s here; use one of: %s", pyjson.QuoteRepr(label), strings.Join(labels, ", "))
	}
	if s := sessionOf(ctx, a); s != nil && !s.isLoaded(label) {
		return nil, "", fmt.Errorf("skill %s: %w; call `%s` with its name first", pyjson.QuoteRepr(label), ErrNotLoaded, a.loader)
	}
	return sk, label, nil
}

// ReadFile returns the text of the file at rel, a path relative to the
// skill's folder, or the list of the files under it when it is a folder
// ("" and "." list the whole skill). rel must be relative and free of
// "..", and must lead, symbolic links resolved, inside the skill's folder;
// the file must be text (UTF-8, no NUL byte) of at most limit bytes.
func ReadFile(s *Skill, rel string, limit int64) (string, error) {
	if s.Dir == "" {
		return "", errors.New("an inline skill has no files")
	}
	clean, err := relativePath(rel)
	if err != nil {
		return "", err
	}
	dirs, err := confine.New(s.Dir)
	if err != nil {
		return "", err
	}
	real, err := dirs.Resolve(clean)
	if err != nil {
		return "", fmt.Errorf("the path %s leads outside the skill's folder (%w)", rel, ErrOutside)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("there is no file %s in the skill; read \".\" to list its files", rel)
	}
	if st.IsDir() {
		return listing(dirs.List()[0], real)
	}
	if st.Size() > limit {
		return "", fmt.Errorf("%s is %d bytes: %w of %d bytes", rel, st.Size(), ErrTooLarge, limit)
	}
	data, err := dirs.ReadFile(clean, limit)
	if err != nil {
		if errors.Is(err, confine.ErrOutside) {
			return "", fmt.Errorf("the path %s leads outside the skill's folder (%w)", rel, ErrOutside)
		}
		return "", fmt.Errorf("cannot read %s: %w", rel, errors.Unwrap(err))
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return "", fmt.Errorf("%s: %w", rel, ErrNotText)
	}
	return string(data), nil
}

// relativePath checks a path a model gave and cleans it.
func relativePath(rel string) (string, error) {
	rel = strings.TrimSpace(rel)
	if rel == "" {
		return ".", nil
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || filepath.VolumeName(rel) != "" {
		return "", fmt.Errorf("%s: %w", rel, ErrAbsolutePath)
	}
	for _, part := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", fmt.Errorf("%s: %w", rel, ErrParentPath)
		}
	}
	return filepath.Clean(filepath.FromSlash(rel)), nil
}

// listing lists the regular files under dir, relative to root.
func listing(root, dir string) (string, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(real, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	if len(files) == 0 {
		return "(no files)", nil
	}
	more := ""
	if len(files) > maxListing {
		more = fmt.Sprintf("\n... and %d more", len(files)-maxListing)
		files = files[:maxListing]
	}
	return strings.Join(files, "\n") + more, nil
}
