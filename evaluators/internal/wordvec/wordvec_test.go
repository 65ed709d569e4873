package wordvec

import (
	"math"
	"testing"
)

func TestDefaultTable(t *testing.T) {
	tab := Default()
	if tab.Len() != 40000 {
		t.Fatalf("Len() = %d, want 40000", tab.Len())
	}
	if got := tab.ID("the"); got != 0 {
		t.Errorf(`ID("the") = %d, want 0 (most frequent)`, got)
	}
	if got := tab.ID("qwzxv"); got != -1 {
		t.Errorf(`ID("qwzxv") = %d, want -1`, got)
	}
	// GloVe 6B 100d "the" begins -0.038194 -0.24487 0.72812.
	v := make([]float32, Dims)
	tab.Vector(v, tab.ID("the"))
	for j, want := range []float32{-0.038194, -0.24487, 0.72812} {
		if math.Abs(float64(v[j]-want)) > 0.015 {
			t.Errorf("the[%d] = %.4f, want %.4f (within half an int8 step)", j, v[j], want)
		}
	}
}

func TestCosineOrdersNeighbours(t *testing.T) {
	tab := Default()
	id := func(w string) int {
		i := tab.ID(w)
		if i < 0 {
			t.Fatalf("no vector for %q", w)
		}
		return i
	}
	if c := tab.Cosine(id("car"), id("car")); math.Abs(float64(c)-1) > 1e-5 {
		t.Errorf("cos(car, car) = %.4f, want 1", c)
	}
	near, far := tab.Cosine(id("car"), id("vehicle")), tab.Cosine(id("car"), id("poetry"))
	if near <= far+0.3 {
		t.Errorf("cos(car, vehicle) = %.3f, cos(car, poetry) = %.3f: neighbours not closer", near, far)
	}
	if c := tab.Cosine(id("woman"), id("girl")); c < 0.7 {
		t.Errorf("cos(woman, girl) = %.3f, want >= 0.7", c)
	}
}

func TestDecodeRejectsBadData(t *testing.T) {
	if _, err := Decode([]byte("not gzip")); err == nil {
		t.Error("Decode(garbage) returned no error")
	}
}
