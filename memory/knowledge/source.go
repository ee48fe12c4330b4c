package knowledge

import (
	"bytes"
	"context"
	"encoding/csv"
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

func supported(path string) bool {
	return slices.Contains(Extensions, strings.ToLower(filepath.Ext(path)))
}

// documentText turns the bytes of a file into its text, by its extension.
func documentText(path string, data []byte) (string, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var text string
	var err error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		text, err = jsonText(data)
	case ".csv":
		text, err = csvText(data)
	default:
		text = string(data)
	}
	if err != nil {
		return "", err
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return text, nil
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
