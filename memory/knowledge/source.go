package knowledge

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/troupe-dev/troupe/internal/jsondata"
)

// A Document is the text of one source, or of one file of a folder,
// before chunking.
type Document struct {
	// Name identifies the document: the name given to Text, or the file path.
	Name string
	Text string
}

// A Source yields documents to add to a Base.
type Source interface {
	Documents(ctx context.Context) ([]Document, error)
}

// SourceFunc adapts a function to the Source interface.
type SourceFunc func(ctx context.Context) ([]Document, error)

// Documents implements Source.
func (f SourceFunc) Documents(ctx context.Context) ([]Document, error) { return f(ctx) }

// Text is a source of one document with the given name and text.
func Text(name, text string) Source {
	return SourceFunc(func(context.Context) ([]Document, error) {
		return []Document{{Name: name, Text: text}}, nil
	})
}

// MaxFileSize is the largest file File and Folder read.
const MaxFileSize = 64 << 20

// Extensions are the file name extensions File and Folder read.
var Extensions = []string{".txt", ".md", ".json", ".csv"}

// File is a source reading one file: .txt and .md as they are, .json
// flattened to "path.to[0].key: value" lines (keys sorted), .csv as one
// "column: value, ..." line per row under its header row.
func File(path string) Source {
	return SourceFunc(func(ctx context.Context) ([]Document, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := readFile(path)
		if err != nil {
			return nil, err
		}
		return []Document{d}, nil
	})
}

// Folder is a source reading every file with a supported extension under
// dir, recursively, in lexical order, skipping names that start with a dot.
func Folder(dir string) Source {
	return SourceFunc(func(ctx context.Context) ([]Document, error) {
		var docs []Document
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if path != dir && strings.HasPrefix(e.Name(), ".") {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !e.Type().IsRegular() || !supported(path) {
				return nil
			}
			d, err := readFile(path)
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

func supported(path string) bool {
	return slices.Contains(Extensions, strings.ToLower(filepath.Ext(path)))
}

func readFile(path string) (Document, error) {
	if !supported(path) {
		return Document{}, fmt.Errorf("knowledge: %s: unsupported file type; supported: %s", path, strings.Join(Extensions, ", "))
	}
	f, err := os.Open(path)
	if err != nil {
		return Document{}, fmt.Errorf("knowledge: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return Document{}, fmt.Errorf("knowledge: %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return Document{}, fmt.Errorf("knowledge: %s: larger than %d bytes", path, MaxFileSize)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var text string
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		text, err = jsonText(data)
	case ".csv":
		text, err = csvText(data)
	default:
		text = string(data)
	}
	if err != nil {
		return Document{}, fmt.Errorf("knowledge: %s: %w", path, err)
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return Document{Name: path, Text: text}, nil
}

// jsonText flattens a JSON document into one "path: value" line per leaf.
func jsonText(data []byte) (string, error) {
	v, err := jsondata.Decode(data)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	flatten(&b, "", v)
	return b.String(), nil
}

func flatten(b *strings.Builder, path string, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			flatten(b, p, x[k])
		}
	case []any:
		for i, e := range x {
			flatten(b, path+"["+strconv.Itoa(i)+"]", e)
		}
	default:
		if path != "" {
			b.WriteString(path)
			b.WriteString(": ")
		}
		if s, ok := x.(string); ok {
			b.WriteString(s)
		} else {
			j, _ := jsondata.Marshal(x) // a scalar from Unmarshal: cannot fail
			b.Write(j)
		}
		b.WriteByte('\n')
	}
}

// csvText renders each row under the header row as "column: value, ...".
func csvText(data []byte) (string, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return "", err
	}
	if len(rows) == 0 {
		return "", nil
	}
	header := rows[0]
	var b strings.Builder
	for _, row := range rows[1:] {
		for i, cell := range row {
			if i > 0 {
				b.WriteString(", ")
			}
			if i < len(header) && header[i] != "" {
				b.WriteString(header[i])
				b.WriteString(": ")
			}
			b.WriteString(cell)
		}
		b.WriteByte('\n')
	}
	if len(rows) == 1 {
		return strings.Join(header, ", ") + "\n", nil
	}
	return b.String(), nil
}
