package canon

import (
	"encoding/binary"
	"fmt"

	"ocvist/internal/splitmix"
)

// MaxPackedStones is the most stones a packed key holds.
const MaxPackedStones = 255

// packedGrid is the row length of a packed key's cells.
const packedGrid = 16

// AppendPacked appends key's packed form to dst. When key does not pack
// (the package documentation, "Packed form and id") it returns dst
// unchanged and false.
func AppendPacked(dst []byte, key []byte) ([]byte, bool) {
	n := len(key) / tokenLen
	if len(key)%tokenLen != 0 || n > MaxPackedStones || n == 0 {
		return dst, false
	}
	start := len(dst)
	dst = append(dst, byte(n))
	prev := -1
	for i := 0; i < len(key); i += tokenLen {
		t := key[i : i+tokenLen]
		col, row := twoDigits(t[0], t[1]), twoDigits(t[2], t[3])
		cell := row*packedGrid + col
		if col < 0 || col >= packedGrid || row < 0 || row >= packedGrid || cell <= prev || t[4] != 'x' && t[4] != 'o' {
			return dst[:start], false
		}
		v := uint64(cell-prev) << 1
		if t[4] == 'o' {
			v |= 1
		}
		dst = binary.AppendUvarint(dst, v)
		prev = cell
	}
	return dst, true
}

// twoDigits reads two decimal digits, or −1.
func twoDigits(a, b byte) int {
	if a < '0' || a > '9' || b < '0' || b > '9' {
		return -1
	}
	return int(a-'0')*10 + int(b-'0')
}

// PackedLen is the length of the packed key that b starts with, checked:
// an error wrapping ErrBadKey when b is cut short, a stone lies off the
// 16x16 grid or out of order, or a uvarint is not in its shortest form
// (each key has one packing).
func PackedLen(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: packed key cut short", ErrBadKey)
	}
	n, i, cell := int(b[0]), 1, -1
	if n == 0 {
		return 0, fmt.Errorf("%w: packed key of no stones", ErrBadKey)
	}
	for s := range n {
		v, k := binary.Uvarint(b[i:])
		if k <= 0 {
			return 0, fmt.Errorf("%w: packed key cut short", ErrBadKey)
		}
		if k > 1 && b[i+k-1] == 0 {
			return 0, fmt.Errorf("%w: packed key's stone %d not in its shortest form", ErrBadKey, s+1)
		}
		if v>>1 == 0 || cell+int(v>>1) >= packedGrid*packedGrid {
			return 0, fmt.Errorf("%w: packed key's stone %d off its grid", ErrBadKey, s+1)
		}
		cell += int(v >> 1)
		i += k
	}
	return i, nil
}

// AppendUnpacked appends the text of the packed key p, checked by
// PackedLen, to dst.
func AppendUnpacked(dst, p []byte) []byte {
	n, b := int(p[0]), p[1:]
	cell := -1
	for range n {
		v, k := binary.Uvarint(b)
		b = b[k:]
		cell += int(v >> 1)
		col, row := cell%packedGrid, cell/packedGrid
		side := byte('x')
		if v&1 != 0 {
			side = 'o'
		}
		dst = append(dst, byte('0'+col/10), byte('0'+col%10), byte('0'+row/10), byte('0'+row%10), side)
	}
	return dst
}

// ID is the fixed-size id of key (the package documentation, "Packed form
// and id"). Guarded by BenchmarkID.
func ID(key string) int64 {
	z := splitmix.Mix(uint64(len(key)))
	for len(key) >= 8 {
		c := uint64(key[0]) | uint64(key[1])<<8 | uint64(key[2])<<16 | uint64(key[3])<<24 |
			uint64(key[4])<<32 | uint64(key[5])<<40 | uint64(key[6])<<48 | uint64(key[7])<<56
		z = splitmix.Mix(z + splitmix.Golden + c)
		key = key[8:]
	}
	if len(key) > 0 {
		var c uint64
		for i := len(key) - 1; i >= 0; i-- {
			c = c<<8 | uint64(key[i])
		}
		z = splitmix.Mix(z + splitmix.Golden + c)
	}
	return int64(z)
}
