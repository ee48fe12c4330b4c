package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/troupe-dev/troupe/internal/confine"
	"github.com/troupe-dev/troupe/schema"
)

// ErrOutsideRoot is wrapped by the error of a crew declaration path that
// leaves the flow's folder.
var ErrOutsideRoot = errors.New("crew declaration path must be within the flow definition directory")

// A CrewFile is a crew declaration read from a folder: crew.jsonc (or
// crew.json) and an agents/<name>.jsonc (or .json) file per agent.
type CrewFile struct {
	// Path is the crew file read.
	Path string
	// Data is the crew as JSON data, shaped like an inline crew's with
	// block: "agents" maps each agent's name to its definition.
	Data map[string]any
	// Agents lists the agent names in the order the crew file gives them.
	Agents []string
}

// LoadCrewDir reads the crew declaration at rel. With a root (the folder of
// the flow file), rel is relative to it, and every file read (the crew file
// and each agents/<name> file) must resolve inside root or one of the allow
// folders, symbolic links included; without a root, rel is used as given.
// A folder means its crew.jsonc, else its crew.json. The declaration is
// checked as [CheckCrewData] does.
func LoadCrewDir(root, rel string, allow ...string) (*CrewFile, error) {
	files, err := newCrewFiles(root, allow)
	if err != nil {
		return nil, err
	}
	path, err := files.crewPath(rel)
	if err != nil {
		return nil, err
	}
	data, err := files.readJSONC(path)
	if err != nil {
		return nil, err
	}
	if files.dirs != nil && !filepath.IsAbs(path) {
		// Relative paths are read relative to the root, and named from it.
		path = filepath.Join(files.dirs.Base(), path)
	}
	cf := &CrewFile{Path: path, Data: data}
	agents := map[string]any{}
	switch list := data["agents"].(type) {
	case nil:
	case []any:
		for i, item := range list {
			switch v := item.(type) {
			case string:
				if v == "" || strings.ContainsAny(v, `/\`) || v == "." || v == ".." {
					return nil, &CrewError{Msg: fmt.Sprintf("%s: agents[%d]: invalid agent name %q", path, i, v)}
				}
				body, err := files.readAgent(filepath.Join(filepath.Dir(path), "agents"), v)
				if err != nil {
					return nil, err
				}
				agents[v] = body
				cf.Agents = append(cf.Agents, v)
			case map[string]any:
				name, _ := v["name"].(string)
				if name == "" {
					return nil, &CrewError{Msg: fmt.Sprintf("%s: agents[%d].name must be a non-empty string", path, i)}
				}
				agents[name] = v
				cf.Agents = append(cf.Agents, name)
			default:
				return nil, &CrewError{Msg: fmt.Sprintf("%s: agents[%d] must be an agent name or an agent mapping", path, i)}
			}
		}
	case map[string]any:
		for k, v := range list {
			agents[k] = v
			cf.Agents = append(cf.Agents, k)
		}
	default:
		return nil, &CrewError{Msg: fmt.Sprintf("%s: agents must be a list of agent names", path)}
	}
	data["agents"] = agents
	if err := CheckCrewData(data); err != nil {
		return nil, err
	}
	return cf, nil
}

// crewFiles reads the files of a crew declaration: confined to the allowed
// folders when dirs is set, as given otherwise.
type crewFiles struct{ dirs *confine.Dirs }

func newCrewFiles(root string, allow []string) (crewFiles, error) {
	if root == "" {
		return crewFiles{}, nil
	}
	dirs, err := confine.New(root, allow...)
	if err != nil {
		return crewFiles{}, fmt.Errorf("action: crew declaration: %w", err)
	}
	return crewFiles{dirs: dirs}, nil
}

// crewPath finds the crew file for rel: rel itself, or for a folder its
// crew.jsonc, else its crew.json.
func (c crewFiles) crewPath(rel string) (string, error) {
	path := rel
	if st, err := c.stat(path); err == nil && st.IsDir() {
		json := filepath.Join(path, "crew.json")
		path = filepath.Join(path, "crew.jsonc")
		if _, err := c.stat(path); errors.Is(err, fs.ErrNotExist) {
			if _, err := c.stat(json); err == nil {
				path = json
			}
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return path, nil
}

func (c crewFiles) stat(path string) (fs.FileInfo, error) {
	if c.dirs == nil {
		return os.Stat(path)
	}
	st, err := c.dirs.Stat(path)
	return st, outsideRoot(err)
}

func (c crewFiles) read(path string) ([]byte, error) {
	if c.dirs == nil {
		return os.ReadFile(path)
	}
	data, err := c.dirs.ReadFile(path, 0)
	return data, outsideRoot(err)
}

// outsideRoot gives a path that leaves the allowed folders CrewAI's message
// (and ErrOutsideRoot), followed by where the path leads.
func outsideRoot(err error) error {
	if errors.Is(err, confine.ErrOutside) {
		return fmt.Errorf("action: %w: %w", ErrOutsideRoot, err)
	}
	return err
}

// readAgent reads agents/<name>.jsonc, else agents/<name>.json.
func (c crewFiles) readAgent(dir, name string) (map[string]any, error) {
	p := filepath.Join(dir, name+".jsonc")
	if _, err := c.stat(p); errors.Is(err, fs.ErrNotExist) {
		if _, err := c.stat(filepath.Join(dir, name+".json")); err == nil {
			p = filepath.Join(dir, name+".json")
		}
	}
	return c.readJSONC(p)
}

// readJSONC reads a JSON-with-comments file holding one object.
func (c crewFiles) readJSONC(path string) (map[string]any, error) {
	raw, err := c.read(path)
	if errors.Is(err, ErrOutsideRoot) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("action: crew declaration: %w", err)
	}
	std, err := hujson.Standardize(raw)
	if err != nil {
		return nil, fmt.Errorf("action: crew declaration %s: %w", path, err)
	}
	v, err := schema.DecodeJSON(std)
	if err != nil {
		return nil, fmt.Errorf("action: crew declaration %s: %w", path, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("action: crew declaration %s: want a JSON object, got %T", path, v)
	}
	return m, nil
}

// CheckCrewData checks a crew given as JSON data (agents as a map from name
// to definition) the way CrewAI's loader does, with its messages: required
// agent fields, settings objects, task agent and context references, and
// the manager agent.
func CheckCrewData(data map[string]any) error {
	cerr := func(format string, args ...any) error { return &CrewError{Msg: fmt.Sprintf(format, args...)} }
	agents, _ := data["agents"].(map[string]any)
	if len(agents) == 0 {
		return cerr("crew action requires inline agent definitions")
	}
	for _, name := range sortedKeys(agents) {
		a, ok := agents[name].(map[string]any)
		if !ok {
			return cerr("agents.%s: must be a mapping", name)
		}
		if s, ok := a["settings"]; ok && s != nil {
			if _, ok := s.(map[string]any); !ok {
				return cerr("agents.%s: 'settings' must be an object when provided", name)
			}
		}
		if r, _ := a["from_repository"].(string); r != "" {
			continue
		}
		for _, f := range [...]string{"role", "goal", "backstory"} {
			if s, _ := a[f].(string); strings.TrimSpace(s) == "" {
				return cerr("agents.%s: missing required field '%s'", name, f)
			}
		}
	}
	tasks, _ := data["tasks"].([]any)
	if len(tasks) == 0 {
		return cerr("crew action requires a non-empty tasks list")
	}
	seen := map[string]bool{}
	for i, item := range tasks {
		t, ok := item.(map[string]any)
		if !ok {
			return cerr("tasks[%d]: must be a mapping", i)
		}
		for _, f := range [...]string{"description", "expected_output"} {
			if _, ok := t[f].(string); !ok {
				return cerr("tasks[%d]: missing required field '%s'", i, f)
			}
		}
		if a, _ := t["agent"].(string); a != "" && agents[a] == nil {
			return cerr("tasks[%d]: references agent '%s' which does not match a loaded agent definition", i, a)
		}
		refs, _ := t["context"].([]any)
		for _, r := range refs {
			if s, _ := r.(string); !seen[s] {
				return cerr("tasks[%d]: has context reference '%v' but that task has not been defined yet", i, r)
			}
		}
		if n, _ := t["name"].(string); n != "" {
			seen[n] = true
		}
	}
	if m, _ := data["manager_agent"].(string); m != "" && agents[m] == nil {
		return cerr("manager_agent '%s' does not match an agent definition", m)
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
