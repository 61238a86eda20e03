package data

import "fmt"

var pixelScaleNames = [...]string{Raw: "raw", Unit: "unit"}

// String returns "raw" or "unit".
func (p PixelScale) String() string {
	if p >= 0 && int(p) < len(pixelScaleNames) {
		return pixelScaleNames[p]
	}
	return fmt.Sprintf("PixelScale(%d)", int(p))
}

// MarshalText returns the scale's name.
func (p PixelScale) MarshalText() ([]byte, error) {
	if p < 0 || int(p) >= len(pixelScaleNames) {
		return nil, fmt.Errorf("data: unknown pixel scale %d", int(p))
	}
	return []byte(pixelScaleNames[p]), nil
}

// UnmarshalText reads a scale's name.
func (p *PixelScale) UnmarshalText(b []byte) error {
	for i, n := range pixelScaleNames {
		if n == string(b) {
			*p = PixelScale(i)
			return nil
		}
	}
	return fmt.Errorf("data: unknown pixel scale %q (want raw or unit)", b)
}

// Values lists the scales' names.
func (PixelScale) Values() []string { return pixelScaleNames[:] }
