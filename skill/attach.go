package skill

import (
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/troupe-dev/troupe/action"
)

// Tool names besides the loader, when no other tool of the agent has them.
const (
	ReaderName = "read_skill_file"
	RunnerName = "run_skill_script"
)

// Defaults of [Options].
const (
	DefaultScriptTimeout  = 30 * time.Second
	DefaultMaxReadBytes   = 64 << 10
	DefaultMaxOutputBytes = 32 << 10
)

// Options say how [Attach] gives skills to an agent.
type Options struct {
	// Scripts registers run_skill_script, which runs the files under a
	// loaded skill's scripts/ folder. Off by default: scripts are code from
	// the skill's author, and only a host that trusts its skills should
	// let agents run them.
	Scripts bool
	// NoToolLimits turns off the enforcement of allowed-tools.
	NoToolLimits bool
	// ScriptTimeout bounds one script run; 0 means DefaultScriptTimeout.
	ScriptTimeout time.Duration
	// MaxReadBytes bounds the files read_skill_file returns; 0 means
	// DefaultMaxReadBytes.
	MaxReadBytes int64
	// MaxOutputBytes bounds what is kept of a script's stdout and of its
	// stderr; 0 means DefaultMaxOutputBytes.
	MaxOutputBytes int
}

// agentSkills is one agent's skills, shared by its tools and the sessions
// of its runs.
type agentSkills struct {
	set      *Set
	opts     Options
	alwaysOn []*Skill
	catalog  []CatalogEntry
	byLabel  map[string]*Skill
	// The tools' names; "" for a tool the agent does not get.
	loader, reader, runner string
	// readable and runnable are the labels read_skill_file and
	// run_skill_script take.
	readable, runnable []string
	// started reports the discovery events once, at the first run.
	started sync.Once
}

// Attach gives spec the skills of set, the way CrewAI gives them: the
// skill section of the system prompt (always-on skills' instructions and
// the catalog of the others), and, when the catalog is not empty, the
// load_skill tool (named load_skill_2, ... when a tool of spec already has
// that name once sanitized). Beyond CrewAI it adds read_skill_file when a
// catalog skill has files besides its SKILL.md, run_skill_script when
// opts.Scripts is set and a catalog skill has scripts, and a Session per
// run that tracks the loaded skills and enforces their allowed-tools. An
// empty set changes nothing.
func Attach(spec *action.AgentSpec, set *Set, opts Options) {
	if set.Empty() {
		return
	}
	if opts.ScriptTimeout <= 0 {
		opts.ScriptTimeout = DefaultScriptTimeout
	}
	if opts.MaxReadBytes <= 0 {
		opts.MaxReadBytes = DefaultMaxReadBytes
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = DefaultMaxOutputBytes
	}
	a := &agentSkills{set: set, opts: opts, catalog: Catalog(set.Entries), byLabel: map[string]*Skill{}}
	for _, e := range set.Entries {
		if e.AlwaysOn {
			a.alwaysOn = append(a.alwaysOn, e.Skill)
		}
	}
	taken := make(map[string]bool, len(spec.Tools)+3)
	for _, t := range spec.Tools {
		taken[SanitizeToolName(t.Spec().Name)] = true
	}
	var tools []action.Tool
	if len(a.catalog) > 0 {
		for _, c := range a.catalog {
			a.byLabel[c.Label] = c.Skill
			if hasFiles(c.Skill.Dir, FileName) {
				a.readable = append(a.readable, c.Label)
			}
			if opts.Scripts && hasFiles(filepath.Join(c.Skill.Dir, "scripts"), "") {
				a.runnable = append(a.runnable, c.Label)
			}
		}
		a.loader = freeToolName(LoaderName, taken)
		taken[a.loader] = true
		tools = append(tools, &loaderTool{a})
		if len(a.readable) > 0 {
			a.reader = freeToolName(ReaderName, taken)
			taken[a.reader] = true
			tools = append(tools, &readTool{a})
		}
		if len(a.runnable) > 0 {
			a.runner = freeToolName(RunnerName, taken)
			tools = append(tools, &scriptTool{a})
		}
	}
	spec.Tools = append(slices.Clip(spec.Tools), tools...)
	spec.SkillPrompt = PromptSection(a.alwaysOn, a.catalog, a.loader)
	spec.Session = func() action.Session { return &session{a: a} }
}

// hasFiles reports whether dir holds, at any depth, a regular file other
// than skip (a name relative to dir).
func hasFiles(dir, skip string) bool {
	if dir == "" {
		return false
	}
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if d.Type().IsRegular() {
			if rel, _ := filepath.Rel(dir, p); rel != skip {
				found = true
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

// skillTool reports whether name is one of the agent's skill tools, which
// allowed-tools never refuses.
func (a *agentSkills) skillTool(name string) bool {
	return name != "" && (name == a.loader || name == a.reader || name == a.runner)
}

// labels of the catalog.
func (a *agentSkills) labels() []string {
	out := make([]string, len(a.catalog))
	for i, c := range a.catalog {
		out[i] = c.Label
	}
	return out
}
