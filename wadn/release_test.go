package wadn

import (
	"testing"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/internal/fixture"
	"github.com/wadn-go/wadn/wadn/nets"
)

// TestStepReleasesBuffers checks that WADN's steps give back every pooled
// buffer they take, the critics' passes on the interpolates included:
// once the first steps have released every size, further steps make no
// buffer (autodiff.PoolMisses).
func TestStepReleasesBuffers(t *testing.T) {
	amazon := nets.DefaultAmazon()
	cases := []struct {
		name  string
		task  *data.Task
		ds    *dataset.Dataset
		net   nets.Network
		batch int
	}{
		{"digits", DigitsBenchTask(), dataset.Digits, nets.Digits{}, 4},
		{"amazon", amazonBenchTask(), dataset.Amazon, &amazon, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewBenchRun(c.task, c.ds, c.net, c.batch)
			if err != nil {
				t.Fatal(err)
			}
			fixture.CheckReleases(t, r)
		})
	}
}
