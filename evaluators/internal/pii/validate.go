package pii

import (
	"crypto/sha256"
	"math/big"
	"strings"
)

// luhn reports whether the decimal digit string d passes the Luhn check.
func luhn(d string) bool {
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// ibanLengths is the IBAN length of each country of the SWIFT IBAN registry.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
	"RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

// ibanValid reports whether s (spaces allowed, any case) is an IBAN of a
// registry country with that country's length and a valid mod-97 check.
func ibanValid(s string) bool {
	s = strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	if len(s) < 5 || ibanLengths[s[:2]] != len(s) {
		return false
	}
	// Move the first four characters to the end, letters to 10..35, mod 97,
	// computed digit by digit.
	rem := 0
	for _, c := range s[4:] + s[:4] {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58CheckValid reports whether s decodes from base58 to 25 bytes whose
// last four are the double-SHA-256 checksum of the first 21 (a bitcoin
// P2PKH or P2SH address).
func base58CheckValid(s string) bool {
	n := new(big.Int)
	radix := big.NewInt(58)
	for i := 0; i < len(s); i++ {
		v := strings.IndexByte(base58Alphabet, s[i])
		if v < 0 {
			return false
		}
		n.Mul(n, radix)
		n.Add(n, big.NewInt(int64(v)))
	}
	b := n.Bytes()
	for i := 0; i < len(s) && s[i] == '1'; i++ {
		b = append([]byte{0}, b...)
	}
	if len(b) != 25 {
		return false
	}
	first := sha256.Sum256(b[:21])
	second := sha256.Sum256(first[:])
	return string(second[:4]) == string(b[21:])
}

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// bech32Valid reports whether s is a bech32 (BIP 173) or bech32m (BIP 350)
// string with the "bc" prefix and a valid checksum.
func bech32Valid(s string) bool {
	if strings.ToLower(s) != s && strings.ToUpper(s) != s {
		return false // mixed case is invalid
	}
	s = strings.ToLower(s)
	sep := strings.LastIndexByte(s, '1')
	if sep < 1 || s[:sep] != "bc" || len(s)-sep-1 < 6 || len(s) > 90 {
		return false
	}
	hrp := s[:sep]
	values := make([]int, 0, 2*len(hrp)+1+len(s)-sep-1)
	for i := 0; i < len(hrp); i++ {
		values = append(values, int(hrp[i]>>5))
	}
	values = append(values, 0)
	for i := 0; i < len(hrp); i++ {
		values = append(values, int(hrp[i]&31))
	}
	for i := sep + 1; i < len(s); i++ {
		v := strings.IndexByte(bech32Charset, s[i])
		if v < 0 {
			return false
		}
		values = append(values, v)
	}
	p := bech32Polymod(values)
	return p == 1 || p == 0x2bc830a3
}

func bech32Polymod(values []int) int {
	gen := [5]int{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := 1
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ v
		for i := 0; i < 5; i++ {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}
