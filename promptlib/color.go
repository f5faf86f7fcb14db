package promptlib

import "strings"

// Colors are stored as hex by the app and spoken as names by the API.
var colorHex = map[string]string{
	"red":    "#EF4444",
	"orange": "#F97316",
	"yellow": "#EAB308",
	"green":  "#22C55E",
	"blue":   "#3B82F6",
	"purple": "#A855F7",
}

// ColorNames lists the color names the API accepts, in the app's order.
var ColorNames = []string{"red", "orange", "yellow", "green", "blue", "purple"}

// ColorHex returns the stored hex form of a color name.
func ColorHex(name string) (string, bool) {
	h, ok := colorHex[name]
	return h, ok
}

// ColorName returns the API name of a stored hex color, or nil for an unknown or empty one: a
// color the app added later must not break reading.
func ColorName(hex string) *string {
	for _, name := range ColorNames {
		if strings.EqualFold(colorHex[name], hex) {
			return Ptr(name)
		}
	}
	return nil
}
