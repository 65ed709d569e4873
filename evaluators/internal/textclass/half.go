package textclass

import "math"

// float32ToHalf rounds f to the nearest IEEE 754 binary16 value (ties to
// even); values beyond the range become ±Inf, NaN stays NaN.
func float32ToHalf(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	exp := int(bits>>23) & 0xff
	mant := bits & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15: // overflow
		return sign | 0x7c00
	case exp-127 >= -14: // normal half
		he := uint32(exp - 127 + 15)
		m := mant >> 13
		rest := mant & 0x1fff
		v := he<<10 | m
		if rest > 0x1000 || (rest == 0x1000 && v&1 == 1) {
			v++ // may carry into the exponent, which is correct
		}
		return sign | uint16(v)
	case exp-127 >= -25: // subnormal half
		full := mant | 0x800000
		shift := uint32(-14-(exp-127)) + 13
		m := full >> shift
		rest := full & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || (rest == half && m&1 == 1) {
			m++
		}
		return sign | uint16(m)
	default:
		return sign
	}
}

// halfToFloat32 widens an IEEE 754 binary16 value.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(mant) / (1 << 24) // mant · 2^-24
		if sign != 0 {
			f = -f
		}
		return f
	default:
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	}
}
