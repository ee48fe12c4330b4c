package memory

import (
	"math"
	"time"
)

// Ranking weighs the parts of a recall score.
//
// The zero Ranking ranks by similarity alone: its score is the similarity.
type Ranking struct {
	// Similarity weighs the cosine similarity of query and record.
	Similarity float64
	// Recency weighs 0.5^(age/HalfLife).
	Recency float64
	// Importance weighs the record's importance.
	Importance float64
	// HalfLife is the age at which recency is 0.5; zero turns recency off.
	HalfLife time.Duration
}

// DefaultRanking is CrewAI's: 0.5·similarity + 0.3·recency + 0.2·importance
// with a 30-day half-life.
func DefaultRanking() Ranking {
	return Ranking{Similarity: 0.5, Recency: 0.3, Importance: 0.2, HalfLife: 30 * 24 * time.Hour}
}

// IsZero reports whether r is the zero Ranking (similarity only).
func (r Ranking) IsZero() bool { return r == Ranking{} }

// Score combines a similarity with a record's age and importance. Stores
// call it (or compute the same formula) so that every store ranks alike.
func (r Ranking) Score(similarity float64, createdAt time.Time, importance float64, now time.Time) (float64, ScoreParts) {
	return r.score(similarity, now.Sub(createdAt), importance)
}

func (r Ranking) score(similarity float64, age time.Duration, importance float64) (float64, ScoreParts) {
	p := ScoreParts{Similarity: similarity, Importance: importance}
	if r.HalfLife > 0 {
		p.Recency = decay(age, r.HalfLife)
	}
	if r.IsZero() {
		return similarity, p
	}
	return r.Similarity*p.Similarity + r.Recency*p.Recency + r.Importance*p.Importance, p
}

// decay is 0.5^(age/halfLife), with ages below zero counted as zero so a
// clock skew never lifts recency above 1.
func decay(age, halfLife time.Duration) float64 {
	if age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(halfLife))
}

// bound is the highest score a record of the given similarity and
// importance can reach, whatever its age; searches use it to skip the
// exponential for records that cannot enter the top k.
func (r Ranking) bound(similarity, importance float64) float64 {
	if r.IsZero() {
		return similarity
	}
	rec := 0.0
	if r.HalfLife > 0 {
		rec = max(r.Recency, 0)
	}
	return r.Similarity*similarity + rec + r.Importance*importance
}
