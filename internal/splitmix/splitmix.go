// Package splitmix is SplitMix64 (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", 2014): the finaliser Mix, which scrambles
// a 64-bit value into an independent-looking one, the generator Source
// built on it, and Derive, which makes independent seeds from one recorded
// seed and a few labels.
//
// It is the one copy of this arithmetic in Ocvist: fixed hash tables (the
// board's Zobrist keys), seed derivation (workers, generations, trees) and
// seeded hashing of keys all use it. It has no state and no dependencies;
// everything here is safe for concurrent use.
package splitmix

// Golden is the SplitMix64 increment, 2^64 divided by the golden ratio.
const Golden = 0x9e3779b97f4a7c15

// Mix is the SplitMix64 finaliser: a bijection on 64-bit values whose
// output bits each depend on every input bit.
func Mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Source is the SplitMix64 generator; its value is the state. The zero
// value is a valid generator seeded with 0.
type Source uint64

// Next advances the state by Golden and returns the mixed state.
func (s *Source) Next() uint64 {
	*s += Golden
	return Mix(uint64(*s))
}

// Derive returns a seed derived from seed and the labels, in order: each
// label is added to the running value, which is then mixed. Different
// labels or orders give independent seeds; Derive(seed) is Mix(seed).
func Derive(seed uint64, labels ...uint64) uint64 {
	z := Mix(seed)
	for _, l := range labels {
		z = Mix(z + Golden + l)
	}
	return z
}
