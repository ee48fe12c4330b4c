package skill

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/troupe-dev/troupe/internal/pyjson"
)

// registry finds an @org/name skill: a copy in WorkDir/skills/NAME/ whose
// metadata.version matches the pin, else one in the CrewAI cache whose
// .crewai_meta.json records it.
func (r *Resolver) registry(s *Set, i int, it Item, add func(Entry)) {
	ref, err := ParseRef(it.Value)
	if err != nil {
		s.fail(i, NoteRef, err, nil)
		return
	}
	work := r.WorkDir
	if work == "" {
		work, _ = os.Getwd()
	}
	local := filepath.Join(work, "skills", ref.Name)
	if sk := loadQuiet(local); sk != nil && (ref.Version == "" || versionsMatch(ref.Version, sk.Metadata["version"])) {
		r.loaded(s, i, sk, ref.Org, add)
		return
	}
	home := r.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	cached := filepath.Join(home, ".crewai", "skills", ref.Org, ref.Name)
	if cacheHas(cached, ref.Version) {
		if sk := loadQuiet(cached); sk != nil {
			r.loaded(s, i, sk, ref.Org, add)
			return
		}
	}
	s.fail(i, NoteNotFound, fmt.Errorf("skill: Failed to download skill %s from registry: Troupe does not download skills; put a copy in %s or %s",
		pyjson.QuoteRepr(ref.String()), local+string(filepath.Separator), cached+string(filepath.Separator)), nil)
}

// loadQuiet loads a skill folder under CrewAI's rules, or returns nil.
func loadQuiet(dir string) *Skill {
	if !exactFile(dir, FileName) {
		return nil
	}
	sk, probs := Load(dir, CrewAI)
	if probs.HasErrors() {
		return nil
	}
	return sk
}

// cacheHas reports whether a CrewAI cache folder holds an install, of the
// pinned version when there is a pin.
func cacheHas(dir, version string) bool {
	data, err := readCapped(filepath.Join(dir, ".crewai_meta.json"), 1<<16)
	if err != nil {
		return false
	}
	if version == "" {
		return true
	}
	var meta struct {
		Version any `json:"version"`
	}
	if json.Unmarshal(data, &meta) != nil {
		return false
	}
	v, ok := meta.Version.(string)
	return ok && versionsMatch(version, v)
}
