package memory

import (
	"context"
	"fmt"
	"math"
	"unicode"
	"unicode/utf8"
)

// LexicalEmbedder is the offline default Embedder. It is lexical, not
// semantic: texts are near when they share words and spellings, so
// "car" matches "cars" and "carpool" but not "automobile". It needs no
// model, no network and no setup, and it is deterministic: the same text
// gives the same vector on every machine.
//
// Each lower-cased word (a run of letters and digits) and each character
// trigram of a word padded with spaces is hashed (FNV-1a) to one of Dims
// dimensions, with a sign taken from the hash so collisions tend to cancel
// out; words weigh 1 and trigrams 0.5. The vector is then scaled to unit
// length.
type LexicalEmbedder struct {
	// Dims is the vector length; zero means 512.
	Dims int
}

// DefaultLexicalDims is the vector length of a zero LexicalEmbedder.
const DefaultLexicalDims = 512

var _ Embedder = LexicalEmbedder{}

// ID names the embedder and its settings; caches key on it.
func (e LexicalEmbedder) ID() string { return fmt.Sprintf("lexical-fnv1a-%d", e.dims()) }

func (e LexicalEmbedder) dims() int {
	if e.Dims > 0 {
		return e.Dims
	}
	return DefaultLexicalDims
}

// Embed implements Embedder; its Usage is always zero.
func (e LexicalEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, Usage, error) {
	dims := e.dims()
	flat := make([]float32, dims*len(texts))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, Usage{}, err
			}
		}
		v := flat[i*dims : (i+1)*dims : (i+1)*dims]
		e.embedInto(v, t)
		out[i] = v
	}
	return out, Usage{}, nil
}

// EmbedText returns the vector of one text.
func (e LexicalEmbedder) EmbedText(text string) []float32 {
	v := make([]float32, e.dims())
	e.embedInto(v, text)
	return v
}

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
	wordSeed  = 0x9e3779b9 // distinguishes word features from trigram features
)

func (e LexicalEmbedder) embedInto(v []float32, text string) {
	dims := uint32(len(v))
	var window [3]rune // the last three runes of the padded word
	word := uint32(fnvOffset ^ wordSeed)
	inWord := false
	addTrigram := func() {
		h := uint32(fnvOffset)
		for _, r := range window {
			h = hashRune(h, r)
		}
		add(v, h, dims, 0.5)
	}
	// endWord closes the current word: its padded last trigram and the word itself.
	endWord := func() {
		window = [3]rune{window[1], window[2], ' '}
		addTrigram()
		add(v, word, dims, 1)
		word = fnvOffset ^ wordSeed
		inWord = false
	}
	for _, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if inWord {
				endWord()
			}
			continue
		}
		r = unicode.ToLower(r)
		if !inWord {
			window = [3]rune{' ', ' ', ' '}
			inWord = true
		}
		window = [3]rune{window[1], window[2], r}
		if window[1] != ' ' { // a word's first trigram needs its second rune
			addTrigram()
		}
		word = hashRune(word, r)
	}
	if inWord {
		endWord()
	}
	n := 0.0
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	if n == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
}

func add(v []float32, h, dims uint32, w float32) {
	// The top bit gives the sign; the rest, mixed, the dimension.
	if h&0x80000000 != 0 {
		w = -w
	}
	h ^= h >> 15
	h *= 0x2c1b3c6d
	h ^= h >> 12
	v[h%dims] += w
}

func hashRune(h uint32, r rune) uint32 {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	for _, b := range buf[:n] {
		h ^= uint32(b)
		h *= fnvPrime
	}
	return h
}
