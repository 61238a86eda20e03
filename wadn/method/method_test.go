package method

import (
	"testing"

	"github.com/wadn-go/wadn/data"
)

// TestTitle checks that a method's title is its name except where Titled
// gave another, and that Titled leaves the Method it copies unchanged.
func TestTitle(t *testing.T) {
	plain := Method{About: About{Name: "m", Scenarios: []data.Scenario{data.UDA, data.Limited}}}
	titled := plain.Titled(data.Limited, "m+t")
	again := titled.Titled(data.UDA, "m-u")
	for _, c := range []struct {
		spec Method
		sc   data.Scenario
		want string
	}{
		{plain, data.UDA, "m"},
		{plain, data.Limited, "m"},
		{titled, data.UDA, "m"},
		{titled, data.Limited, "m+t"},
		{again, data.UDA, "m-u"},
		{again, data.Limited, "m+t"},
	} {
		if got := c.spec.Title(c.sc); got != c.want {
			t.Errorf("%v: title %q, want %q", c.sc, got, c.want)
		}
	}
}
